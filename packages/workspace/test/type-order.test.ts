// A run's types are handed to the page workers relation targets first (host/type-order.ts): with
// one page job at a time (weft dev on PGlite), the rows a type points at are written before it,
// whatever order the source lists its types in.
import { type TestApp, testApp } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bookshelfApp } from '../../../apps/bookshelf/src/app.js';
import type { MappedType } from '../src/host/schema-mapping.js';
import { SecretBox } from '../src/host/secret-box.js';
import { type HostedWorkspace, startHostedWorkspace } from '../src/host/start-hosted-workspace.js';
import { relationOrder } from '../src/host/type-order.js';

/** A mapped type with relations to `targets` (only what relationOrder reads). */
const mappedType = (appType: string, targets: string[]) =>
  ({
    appType,
    fields: targets.map((targetAppType) => ({ kind: 'relation', targetAppType })),
  }) as unknown as MappedType;

describe('relationOrder', () => {
  it('puts relation targets first and keeps the given order otherwise', () => {
    const mapped = [
      mappedType('book', ['author', 'genre']),
      mappedType('author', ['genre']),
      mappedType('genre', []),
      mappedType('note', []),
    ];
    expect(relationOrder(['book', 'note', 'author', 'genre'], mapped)).toEqual([
      'genre',
      'author',
      'book',
      'note',
    ]);
    // A target that is not synced, a relation to itself and a cycle change nothing.
    expect(relationOrder(['book'], mapped)).toEqual(['book']);
    expect(relationOrder(['a', 'b'], [mappedType('a', ['a', 'b']), mappedType('b', ['a'])])).toEqual([
      'b',
      'a',
    ]);
  });
});

describe('a sync with one page job at a time', () => {
  let app: TestApp;
  let ws: HostedWorkspace;
  beforeAll(async () => {
    app = await testApp(bookshelfApp);
    ws = await startHostedWorkspace({
      rateLimit: 0,
      webhooks: false,
      box: new SecretBox('type-order-key'),
      hostOptions: { scheduleEveryMs: 0, concurrency: 1 },
      log: () => {},
    });
  });
  afterAll(async () => {
    await ws?.close();
    await app?.close();
  });

  it('writes the types a type points at before it, books listed first', async () => {
    const source = await ws.apps.addSource({ url: app.url, types: ['book', 'author', 'genre'] });
    const events: string[] = [];
    const off = ws.apps.onProgress((id, event) => {
      if (id === source.id && (event.kind === 'page' || event.kind === 'done'))
        events.push(`${event.type} ${event.kind}`);
    });
    const run = await ws.apps.sync(source.id, { wait: true });
    off();
    expect(run.status).toBe('succeeded');
    const first = (type: string) => events.findIndex((e) => e.startsWith(`${type} `));
    expect(events.indexOf('genre done')).toBeLessThan(first('author'));
    expect(events.indexOf('author done')).toBeLessThan(first('book'));
  }, 120_000);
});
