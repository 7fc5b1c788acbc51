// The user's query runs as a reader role, never as the superuser the embedded database (and here
// the test server) connects as, and under a statement time limit: on the embedded PGlite demo
// and, when WEFT_TEST_DATABASE_URL is set, on a real Postgres.
import { type TestApp, testApp } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqlTablesApp } from '../src/app.js';
import { PG_URL, type TestDatabase, pgliteDemo, postgresDemo } from './databases.js';

const runs = [
  { name: 'pglite', enabled: true, open: pgliteDemo },
  { name: 'postgres', enabled: Boolean(PG_URL), open: () => postgresDemo(PG_URL!) },
];
const VALIDATE_FILTER = '/api/v1/synchronizer/filter/validate';

for (const run of runs) {
  describe.runIf(run.enabled)(`sql-tables: the user's query's sandbox on ${run.name}`, () => {
    let db: TestDatabase;
    let app: TestApp;
    beforeAll(async () => {
      db = await run.open();
      app = await testApp(createSqlTablesApp({ source: db.source, queryTimeoutMs: 500, cacheSeconds: 0 }));
    }, 120_000);
    afterAll(async () => {
      await app?.close();
      await db?.close();
    });

    it('runs as a role that is no superuser and reads the account’s tables', async () => {
      const query =
        'SELECT b.id, current_user::text AS who, r.rolsuper::text AS superuser FROM books b JOIN pg_roles r ON r.rolname = current_user';
      const rows = await app.sync('query', { account: db.account, filter: { query } });
      expect(rows.items.length).toBeGreaterThan(0);
      expect(rows.items[0]).toMatchObject({ who: 'weft_query_reader', superuser: 'false' });
    });

    it.each([
      ["SELECT 1 AS id, pg_ls_dir('.') AS f"],
      ["SELECT 1 AS id, pg_read_file('postgresql.conf') AS f"],
    ])('refuses a superuser function: %s', async (query) => {
      const check = await app.post(VALIDATE_FILTER, { account: db.account, filter: { query } });
      expect(check.status).toBe(400);
      expect(check.body.message).toMatch(/permission denied for function/);
      const page = await app.data('query', { account: db.account, filter: { query } });
      expect(page.status).toBe(400);
      expect(page.body.message).toMatch(/permission denied for function/);
    });

    it('does not let a query sleep past the time limit, on either engine', async () => {
      const page = await app.data('query', {
        account: db.account,
        filter: { query: 'SELECT 1 AS id, pg_sleep(5)::text AS slept' },
      });
      expect(page.status).toBe(400);
      expect(page.body.message).toMatch(/ran longer than its time limit of 500 ms/);
    });
  });
}
