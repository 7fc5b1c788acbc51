// The start job asks the app for the first page of every type at once (as the service does, even
// when the process reads one type at a time) while it makes their tables, and the page jobs take
// those answers instead of asking again: over real HTTP, each page
// of each type is asked for exactly once, with the same request a page job makes (account, delta
// point), and its exchange is recorded with the run. Runs on PGlite, and on Postgres when
// WEFT_TEST_DATABASE_URL is set; on Postgres, where another session can hold a lock the start job
// waits for, the first pages are seen to be asked for before the tables are made.
import { auth, defineApp, field, input, resume } from '@weft/core';
import type pg from 'pg';
import { type TestApp, testApp } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../../test/support/databases.js';
import { startHostedOn } from './fixtures/hosted-on.js';
import type { HostedWorkspace } from './start-hosted-workspace.js';

const TOKEN = 'first-pages-token';

interface Asked {
  type: string;
  cursor: number;
  since: string | null;
  token: unknown;
  /** asked while the test held the lock that keeps the start job from making the tables */
  whileLocked: boolean;
}
const asked: Asked[] = [];
let locked = false;

function pages(type: string, count: number) {
  return async function* ({
    cursor,
    since,
    account,
  }: {
    cursor?: unknown;
    since?: Date | null;
    account: unknown;
  }) {
    const at = (cursor as { at?: number } | undefined)?.at ?? 0;
    asked.push({
      type,
      cursor: at,
      since: since ? since.toISOString() : null,
      token: (account as { token?: unknown }).token,
      whileLocked: locked,
    });
    yield { id: `${type}-${at}`, name: `${type} ${at}`, ...(type === 'book' ? { author: 'author-0' } : {}) };
    if (at + 1 < count) yield resume({ at: at + 1 });
  };
}

const app = defineApp({
  id: 'shelf',
  name: 'Shelf',
  version: '1.0.0',
  description: 'authors and their books, a page a row',
  website: 'http://127.0.0.1/',
  authentication: [
    auth.fields({
      id: 'token',
      name: 'Token',
      fields: { token: input.password({ name: 'Token' }) },
      validate: () => ({ name: 'Shelf team', plan: 'pro' }),
    }),
  ],
  pageSize: 1,
  sync: {
    types: {
      book: {
        name: 'Books',
        delta: { safetyMarginHours: 0 },
        fields: {
          id: field.id(),
          name: field.title({ name: 'Title' }),
          author: field.relation({ to: 'author', cardinality: 'many-to-one', targetName: 'Books' }),
        },
        data: pages('book', 3),
      },
      author: {
        name: 'Authors',
        delta: { safetyMarginHours: 0 },
        fields: { id: field.id(), name: field.title({ name: 'Name' }) },
        data: pages('author', 2),
      },
    },
  },
});

let served: TestApp;
beforeAll(async () => {
  served = await testApp(app);
});
afterAll(async () => {
  await served?.close();
});

const byType = (type: string) => asked.filter((a) => a.type === type);
const pagesAsked = () => asked.map((a) => `${a.type}:${a.cursor}`);

/**
 * A first sync of a new source of the app while the test holds a lock on svc_types, which lets
 * the start job read the account and the schema but not record a new type: held until `asks`
 * requests came (at most 15 s), then `settleMs` more. Returns the requests that came meanwhile.
 */
async function syncWithTypesLocked(ws: HostedWorkspace, asks: number, settleMs = 0): Promise<string[]> {
  asked.length = 0;
  const client = await (ws.driver.raw as pg.Pool).connect();
  try {
    await client.query('BEGIN');
    await client.query('LOCK TABLE svc_types IN SHARE ROW EXCLUSIVE MODE');
    locked = true;
    const source = await ws.apps.addSource({ url: served.url, fields: { token: TOKEN } });
    const started = ws.apps.sync(source.id, { wait: true });
    const until = Date.now() + 15_000;
    while (asked.length < asks && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, settleMs));
    locked = false;
    await client.query('COMMIT');
    const run = await started;
    expect(run, run.error ?? '').toMatchObject({ status: 'succeeded', pages: 5 });
  } finally {
    locked = false;
    await client.query('ROLLBACK').catch(() => {});
    client.release();
  }
  return asked.filter((a) => a.whileLocked).map((a) => `${a.type}:${a.cursor}`);
}

for (const target of databaseTargets()) {
  describe(`first pages asked while a run starts [${target.name}]`, () => {
    let ws: HostedWorkspace;
    let stop: () => Promise<void> = async () => {};
    beforeAll(async () => {
      ({ ws, close: stop } = await startHostedOn(target, 'first-pages'));
    });
    afterAll(async () => {
      await stop();
    });

    it('asks every page once, as a page job asks it, and records each exchange', async () => {
      asked.length = 0;
      const source = await ws.apps.addSource({ url: served.url, fields: { token: TOKEN } });
      const run = await ws.apps.sync(source.id, { wait: true });
      expect(run, run.error ?? '').toMatchObject({ status: 'succeeded', pages: 5, rowsSet: 5 });
      expect(byType('author').map((a) => a.cursor)).toEqual([0, 1]);
      expect(byType('book').map((a) => a.cursor)).toEqual([0, 1, 2]);
      expect(asked.every((a) => a.token === TOKEN && a.since === null)).toBe(true);
      // The first pages' exchanges are recorded with the run like any other.
      const { rows } = await ws.driver.query<{ type: string; page: number }>(
        `SELECT type, page FROM weft_host_run_exchanges WHERE run_id = $1 ORDER BY type, page`,
        [run.id],
      );
      expect(rows.map((r) => `${r.type}:${r.page}`)).toEqual([
        'author:1',
        'author:2',
        'book:1',
        'book:2',
        'book:3',
      ]);

      // A delta sync asks its first pages with the delta point, once each.
      asked.length = 0;
      const again = await ws.apps.sync(source.id, { wait: true });
      expect(again, again.error ?? '').toMatchObject({ status: 'succeeded', pages: 5 });
      expect(pagesAsked().sort()).toEqual(['author:0', 'author:1', 'book:0', 'book:1', 'book:2'].sort());
      const since = asked[0]?.since;
      expect(since).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(asked.every((a) => a.since === since && a.token === TOKEN)).toBe(true);
    }, 60_000);

    if (target.name === 'postgres')
      it('asks for the first pages of every type before it makes their tables', async () => {
        expect((await syncWithTypesLocked(ws, 2)).sort()).toEqual(['author:0', 'book:0']);
        expect(pagesAsked().sort()).toEqual(['author:0', 'author:1', 'book:0', 'book:1', 'book:2'].sort());
      }, 60_000);
  });

  describe(`first pages with one page job at a time [${target.name}]`, () => {
    let ws: HostedWorkspace;
    let stop: () => Promise<void> = async () => {};
    beforeAll(async () => {
      ({ ws, close: stop } = await startHostedOn(target, 'first-pages-one', {
        hostOptions: { concurrency: 1 },
      }));
    });
    afterAll(async () => {
      await stop();
    });

    it('asks every first page at once, then each next page once, the relation target first', async () => {
      asked.length = 0;
      const source = await ws.apps.addSource({ url: served.url, fields: { token: TOKEN } });
      const run = await ws.apps.sync(source.id, { wait: true });
      expect(run, run.error ?? '').toMatchObject({ status: 'succeeded', pages: 5 });
      const order = pagesAsked();
      // Both first pages come together (in either order); the one page job then reads the
      // author's pages, the relation target, before the books'.
      expect(order.slice(0, 2).sort()).toEqual(['author:0', 'book:0']);
      expect(order.slice(2)).toEqual(['author:1', 'book:1', 'book:2']);
    }, 60_000);

    if (target.name === 'postgres')
      it('asks ahead for every type though its one page job reads one at a time', async () => {
        expect((await syncWithTypesLocked(ws, 2, 300)).sort()).toEqual(['author:0', 'book:0']);
      }, 60_000);
  });
}
