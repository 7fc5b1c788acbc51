// The engine against a real core app over HTTP: paging, tryLater retried per page, delta with
// REMOVE, concurrent types, and errors that never carry the account.
import { type TestApp, testApp } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AppCallError,
  AppClient,
  type PageEvent,
  readType,
  readTypes,
  splitItems,
  type SyncEvent,
} from '../src/index.js';
import { app, upstream } from './notes-app.js';

let running: TestApp;
let client: AppClient;
beforeAll(async () => {
  running = await testApp(app);
  client = new AppClient(running.url);
});
afterAll(async () => {
  await running.close();
});

const account = { token: 'secret-token-123' };
const collect = async (it: AsyncIterable<SyncEvent>) => {
  const events: SyncEvent[] = [];
  for await (const e of it) events.push(e);
  return events;
};

describe('readType', () => {
  it('follows nextPageConfig to the last page and yields each page once', async () => {
    const events = await collect(
      readType(client, { type: 'note', types: ['note'], filter: {}, account, lastSynchronizedAt: null }),
    );
    const pages = events.filter((e): e is PageEvent => e.kind === 'page');
    expect(pages.map((p) => p.page)).toEqual([1, 2, 3, 4, 5]);
    expect(pages[0]?.pagination).toBeNull();
    expect(pages.flatMap((p) => p.items.map((i) => i.id))).toEqual(upstream.notes.map((n) => n.id));
    expect(events.at(-1)).toEqual({ kind: 'done', type: 'note', pages: 5, synchronizationType: 'full' });
  });

  it('retries a tryLater page with backoff, not the sync', async () => {
    upstream.busyFor = 2;
    const events = await collect(
      readType(client, {
        type: 'note',
        types: ['note'],
        filter: {},
        account,
        lastSynchronizedAt: null,
        retry: { baseDelayMs: 5 },
      }),
    );
    const retries = events.filter((e) => e.kind === 'retry');
    expect(retries.map((r) => r.kind === 'retry' && [r.page, r.attempt, r.delayMs])).toEqual([
      [1, 1, 5],
      [1, 2, 10],
    ]);
    expect(events.filter((e) => e.kind === 'page')).toHaveLength(5);
  });

  it('gives up on a page after the last attempt with the app message', async () => {
    upstream.busyFor = 3;
    const run = collect(
      readType(client, {
        type: 'note',
        types: ['note'],
        filter: {},
        account,
        lastSynchronizedAt: null,
        retry: { baseDelayMs: 1, attempts: 2 },
      }),
    );
    await expect(run).rejects.toThrow(/rate limited/);
    upstream.busyFor = 0;
  });

  it('resumes from a stored page', async () => {
    const first = await collect(
      readType(client, { type: 'note', types: ['note'], filter: {}, account, lastSynchronizedAt: null }),
    );
    const fourth = first.find((e): e is PageEvent => e.kind === 'page' && e.page === 4);
    const events = await collect(
      readType(client, {
        type: 'note',
        types: ['note'],
        filter: {},
        account,
        lastSynchronizedAt: null,
        resumeFrom: { page: 4, pagination: fourth?.pagination ?? null },
      }),
    );
    const pages = events.filter((e): e is PageEvent => e.kind === 'page');
    expect(pages.map((p) => p.page)).toEqual([4, 5]);
    expect(pages[0]?.items[0]?.id).toBe('n15');
  });

  it('reads a delta with REMOVE rows', async () => {
    const events = await collect(
      readType(client, {
        type: 'note',
        types: ['note'],
        filter: {},
        account,
        lastSynchronizedAt: new Date().toISOString(),
      }),
    );
    const items = events.flatMap((e) => (e.kind === 'page' ? e.items : []));
    const { set, remove: removed } = splitItems(items);
    expect(set).toHaveLength(23);
    expect(set.every((r) => !('__syncAction' in r))).toBe(true);
    expect(removed).toEqual(['gone-1', 'gone-2']);
    expect(events.at(-1)).toMatchObject({ kind: 'done', synchronizationType: 'delta' });
  });
});

describe('readTypes', () => {
  it('reads every type concurrently into one stream', async () => {
    const events = await collect(
      readTypes(client, { types: ['note', 'tag'], filter: {}, account, lastSynchronizedAt: null }),
    );
    const done = events.filter((e) => e.kind === 'done').map((e) => e.type);
    expect(done.sort()).toEqual(['note', 'tag']);
    const count = (t: string) =>
      events.reduce((n, e) => n + (e.kind === 'page' && e.type === t ? e.items.length : 0), 0);
    expect(count('note')).toBe(23);
    expect(count('tag')).toBe(7);
  });

  it('fails the stream when one type fails, without the account in the error', async () => {
    const run = collect(
      readTypes(client, { types: ['note', 'nope'], filter: {}, account, lastSynchronizedAt: null }),
    );
    const error = await run.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppCallError);
    expect(String((error as Error).message)).not.toContain('secret-token-123');
  });
});

describe('AppClient', () => {
  it('validates an account and reads config and schema', async () => {
    expect((await client.validate('fields', account)).name).toBe('Notes account');
    const error = await client.validate('fields', { token: 'wrong-secret' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 401 });
    expect(String(error)).not.toContain('wrong-secret');
    const config = await client.config(account);
    expect(config.types.map((t) => t.id)).toEqual(['note', 'tag']);
    const schema = await client.schema(['note'], {}, account);
    expect(schema.note?.name?.name).toBe('Title');
  });
});
