// The user's query's time limit holds on both engines: on a Postgres server through
// statement_timeout, on the embedded PGlite (whose statement timer cannot fire while WebAssembly
// runs) by the worker thread that serves it being ended and opened again. Either way the answer
// is the same 400 naming the limit, and the app keeps answering.
import { type TestApp, testApp } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqlTablesApp } from '../src/app.js';
import { PG_URL, type TestDatabase, pgliteDemo, postgresDemo } from './databases.js';

const runs = [
  { name: 'pglite', enabled: true, open: pgliteDemo },
  { name: 'postgres', enabled: Boolean(PG_URL), open: () => postgresDemo(PG_URL!) },
];
const LIMIT_MS = 1500;
const ENDLESS = 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n AS id FROM r';
const CROSS_JOIN =
  'SELECT a.i::int8 * 1000000 + b.i AS id FROM generate_series(1, 1000000) a(i), generate_series(1, 1000000) b(i)';
const OVER_LIMIT = /Filter "query": the query ran longer than its time limit of 1\.5 s/;

for (const run of runs) {
  describe.runIf(run.enabled)(`sql-tables: the user's query's time limit on ${run.name}`, () => {
    let db: TestDatabase;
    let app: TestApp;
    beforeAll(async () => {
      db = await run.open();
      app = await testApp(
        createSqlTablesApp({ source: db.source, queryTimeoutMs: LIMIT_MS, cacheSeconds: 0 }),
      );
    }, 120_000);
    afterAll(async () => {
      await app?.close();
      await db?.close();
    });

    it.each([
      ['an endless recursive CTE', ENDLESS],
      ['a huge cross join', CROSS_JOIN],
      ['a sleep', 'SELECT 1 AS id, pg_sleep(30)::text AS slept'],
    ])('stops %s at the limit with a 400 naming it', async (_, query) => {
      const page = await app.data('query', { account: db.account, filter: { query } });
      expect(page.status).toBe(400);
      expect(page.body.message).toMatch(OVER_LIMIT);
    });

    it('answers other requests during the query and after it', async () => {
      let longAnswered = false;
      const long = app.data('query', { account: db.account, filter: { query: ENDLESS } }).then((page) => {
        longAnswered = true;
        return page;
      });
      // A request that needs no database answers while the query still runs.
      const descriptor = await app.descriptor();
      expect(descriptor.status).toBe(200);
      expect(longAnswered).toBe(false);
      // One that does is answered too (on PGlite once the worker is open again: it is one session).
      const validate = app.validate('database', db.account);
      expect((await long).status).toBe(400);
      expect((await validate).status).toBe(200);
      const books = await app.sync('books', { account: db.account });
      expect(books.items.length).toBeGreaterThan(0);
      const query = await app.sync('query', {
        account: db.account,
        filter: { query: 'SELECT id, title FROM books' },
      });
      expect(query.items.length).toBeGreaterThanOrEqual(books.items.length);
    });

    // The embedded database only: a server cancels the statement and keeps its session.
    if (run.name === 'pglite')
      it('opens the cluster again in a new worker, keeping its data', async () => {
        await db.sql(
          `UPDATE members SET name = 'Written before the restart' WHERE code = (SELECT min(code) FROM members)`,
        );
        const before = db.embedded!.generation;
        const page = await app.data('query', { account: db.account, filter: { query: ENDLESS } });
        expect(page.status).toBe(400);
        const members = await app.sync('members', { account: db.account });
        expect(db.embedded!.generation).toBe(before + 1);
        expect(members.items.map((m) => m.name)).toContain('Written before the restart');
      });
  });
}
