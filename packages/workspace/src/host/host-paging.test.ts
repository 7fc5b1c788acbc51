// How page jobs read a type's pages, over real HTTP: one job reads page after page (asking for the
// next while it writes the current one) and hands over to a new job after a while, and each page
// is asked for exactly once. A first sync writes rows as creates without looking up their ids,
// and still keeps one row per id when the app sends an id on two pages (the later one wins).
// Runs on PGlite, and on Postgres when WEFT_TEST_DATABASE_URL is set.
import { auth, defineApp, field, resume } from '@weft/core';
import { type TestApp, testApp } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../../test/support/databases.js';
import { startHostedOn } from './fixtures/hosted-on.js';
import type { HostedWorkspace } from './start-hosted-workspace.js';

const PAGES = 12;
const SIZE = 5;
/** how many pages the app serves (fewer in the last sync, for the rows it no longer sends) */
let pages = PAGES;
/** the cursors the app was asked for, in order */
const asked: number[] = [];
let round = 1;

const app = defineApp({
  id: 'pager',
  name: 'Pager',
  version: '1.0.0',
  description: 'pages slowly, one id twice',
  website: 'http://127.0.0.1/',
  authentication: [auth.none({ name: 'None' })],
  pageSize: SIZE,
  sync: {
    types: {
      item: {
        name: 'Items',
        fields: { id: field.id(), name: field.title({ name: 'Name' }) },
        async *data({ cursor }) {
          const at = (cursor as { at?: number } | undefined)?.at ?? 0;
          asked.push(at);
          await new Promise((r) => setTimeout(r, 150));
          for (let i = at; i < at + SIZE; i++) {
            // The second page ends with the first page's first id again, renamed: that one wins.
            if (i === 2 * SIZE - 1) yield { id: 'i0', name: `Item 0 again round ${round}` };
            else yield { id: `i${i}`, name: `Item ${i} round ${round}` };
          }
          if (at + SIZE < pages * SIZE) yield resume({ at: at + SIZE });
        },
      },
    },
  },
});

let served: TestApp;
let appUrl: string;
beforeAll(async () => {
  served = await testApp(app);
  appUrl = served.url;
});
afterAll(async () => {
  await served?.close();
});

for (const target of databaseTargets()) {
  describe(`page jobs [${target.name}]`, () => {
    let ws: HostedWorkspace;
    let stopWorkspace: () => Promise<void> = async () => {};
    beforeAll(async () => {
      ({ ws, close: stopWorkspace } = await startHostedOn(target, 'paging', {
        jobs: { pollSeconds: 0.5 },
        // A page job goes on for a quarter of its expiry: 1 s here, so a sync of 12 pages of
        // 150 ms each hands over at least once.
        hostOptions: { jobExpireSeconds: 4 },
      }));
    });
    afterAll(async () => {
      await stopWorkspace();
    });

    /** A field of every row, by its app id (one row per id, checked). */
    async function byAppId(field: string): Promise<Map<string, string>> {
      const [result] = await ws.execute([
        {
          command: 'svc.entity/query',
          args: {
            query: { 'q/from': 'pager/item', 'q/select': ['pager/id', field], 'q/limit': 'q/no-limit' },
          },
        },
      ]);
      expect(result?.success).toBe(true);
      const rows = (result as { result: Record<string, string>[] }).result;
      expect(rows).toHaveLength(new Set(rows.map((r) => r['pager/id'])).size);
      return new Map(rows.map((r) => [r['pager/id'] as string, r[field] as string]));
    }
    const items = () => byAppId('pager/name');
    const modificationDates = () => byAppId('svc/modification-date');

    const pageJobs = async () =>
      (
        await ws.driver.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM ${ws.jobs.schema}.job WHERE name = 'weft-sync-page'`,
        )
      ).rows[0]?.n ?? 0;

    it('reads every page once, several pages per job, and keeps one row per id', async () => {
      round = 1;
      asked.length = 0;
      const source = await ws.apps.addSource({ url: appUrl });
      const run = await ws.apps.sync(source.id, { wait: true });
      expect(run).toMatchObject({ status: 'succeeded', pages: PAGES });
      // Each page asked for once: the page read ahead is the one the job goes on with.
      expect(asked).toEqual(Array.from({ length: PAGES }, (_, i) => i * SIZE));
      const jobs = await pageJobs();
      expect(jobs).toBeGreaterThan(1);
      expect(jobs).toBeLessThan(PAGES);
      const rows = await items();
      expect(rows.size).toBe(PAGES * SIZE - 1);
      expect(rows.get('i0')).toBe('Item 0 again round 1');
      expect(rows.get('i7')).toBe('Item 7 round 1');

      // Again: every row exists now, so each is updated in place.
      round = 2;
      const again = await ws.apps.sync(source.id, { wait: true });
      expect(again).toMatchObject({ status: 'succeeded', pages: PAGES, rowsRemoved: 0 });
      const after = await items();
      expect(after.size).toBe(PAGES * SIZE - 1);
      expect(after.get('i0')).toBe('Item 0 again round 2');
      expect(after.get(`i${PAGES * SIZE - 1}`)).toBe(`Item ${PAGES * SIZE - 1} round 2`);

      // Once more with nothing changed: every row stays as it was, its modification date too,
      // though each was sent (and so is not removed as unsent). Not i0: it is sent twice with two
      // names, so it changes twice in every sync.
      const dates = await modificationDates();
      dates.delete('i0');
      const third = await ws.apps.sync(source.id, { wait: true });
      expect(third).toMatchObject({ status: 'succeeded', pages: PAGES, rowsRemoved: 0 });
      const now = await modificationDates();
      expect(now.size).toBe(PAGES * SIZE - 1);
      now.delete('i0');
      expect(now).toEqual(dates);
      // Two pages fewer: their rows go, the others stay as they were.
      pages = PAGES - 2;
      const fourth = await ws.apps.sync(source.id, { wait: true });
      expect(fourth).toMatchObject({ status: 'succeeded', pages: PAGES - 2, rowsRemoved: 2 * SIZE });
      const kept = await modificationDates();
      kept.delete('i0');
      expect([...kept.keys()].sort()).toEqual(
        [...dates.keys()].filter((id) => Number(id.slice(1)) < (PAGES - 2) * SIZE).sort(),
      );
      for (const [id, date] of kept) expect(date).toBe(dates.get(id));
      // What the runs marked as sent went with them.
      const { rows: marks } = await ws.driver.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM weft_host_seen',
      );
      expect(marks[0]?.n).toBe(0);
      pages = PAGES;
    }, 90_000);
  });
}
