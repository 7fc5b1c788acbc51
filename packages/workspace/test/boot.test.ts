// What a start costs: the bootstrap statements run once per version of the schema, and a new PGlite
// database is a copy of a template cluster whose tables are already made.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AUTOMATION_RUN } from '../src/automations/store.js';
import { createSystemTables, DDL_VERSION } from '../src/db/bootstrap.js';
import type { Driver, Queryable } from '../src/db/driver.js';
import { openDriver } from '../src/db/open-driver.js';
import { openPgliteDriver } from '../src/db/pglite-driver.js';
import { templatePath } from '../src/db/pglite-template.js';
import { openWorkspace } from '../src/workspace.js';
import { NEW_PGLITE_DATABASE } from '../src/new-database.js';
import { ensureBuiltinTypes } from '../src/schema/builtins.js';
import { describeEachDatabase } from './support/databases.js';

/** The driver, recording every statement sent through it (transactions included). */
function recording(driver: Driver): { driver: Driver; statements: string[] } {
  const statements: string[] = [];
  const wrap = (q: Queryable): Queryable['query'] =>
    ((sql: string, params?: readonly unknown[]) => {
      statements.push(sql);
      return q.query(sql, params);
    }) as Queryable['query'];
  return {
    statements,
    driver: {
      ...driver,
      query: wrap(driver),
      transaction: (fn) => driver.transaction((tx) => fn({ ...tx, query: wrap(tx) })),
    },
  };
}

const ddl = (statements: string[]) => statements.filter((s) => /^\s*(CREATE|ALTER)\b/i.test(s));
const meta = async (driver: Driver, key: string) =>
  (await driver.query<{ value: string }>('SELECT value FROM svc_meta WHERE key = $1', [key])).rows[0]?.value;

describeEachDatabase('bootstrap statements', (target) => {
  it('run on an empty database, not again while their version is current, and again when it is not', async () => {
    const created = await target.create();
    // An in-memory PGlite made from nothing (no template tables), as on a machine without one.
    const driver =
      created.database.kind === 'memory'
        ? await openPgliteDriver(undefined)
        : await openDriver(created.database);
    try {
      const first = recording(driver);
      await createSystemTables(first.driver);
      expect(ddl(first.statements).length).toBeGreaterThan(10);
      expect(await meta(driver, 'ddl_version')).toBe(DDL_VERSION);
      const id = await meta(driver, 'schema_id');
      expect(id).toMatch(/^[0-9a-f-]{36}$/);

      const again = recording(driver);
      await createSystemTables(again.driver);
      expect(ddl(again.statements)).toEqual([]);
      expect(await meta(driver, 'schema_id')).toBe(id);

      await driver.query(`UPDATE svc_meta SET value = 'older' WHERE key = 'ddl_version'`);
      const upgrade = recording(driver);
      await createSystemTables(upgrade.driver);
      expect(ddl(upgrade.statements).length).toBe(ddl(first.statements).length);
      expect(await meta(driver, 'ddl_version')).toBe(DDL_VERSION);
      expect(await meta(driver, 'schema_id')).toBe(id);
    } finally {
      await driver.close();
      await created.drop();
    }
  });
});

describeEachDatabase('the automation worker', (target) => {
  it('takes jobs once the workspace has started, and a job sent at once is kept for it', async () => {
    const created = await target.create();
    try {
      for (let start = 0; start < 2; start++) {
        // First start (on Postgres the queue is made then) and a second one on the same database.
        const ws = await openWorkspace({ database: created.database, webhooks: false, log: () => {} });
        try {
          expect(await ws.jobs.send(AUTOMATION_RUN, { runId: '0' })).toMatch(/^[0-9a-f-]{36}$/);
          await ws.started;
          expect(ws.jobs.isWorking(AUTOMATION_RUN)).toBe(true);
        } finally {
          await ws.close();
        }
        if (created.database.kind === 'memory') break;
      }
    } finally {
      await created.drop();
    }
  });
});

describe('a new PGlite database', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });
  const { sql } = NEW_PGLITE_DATABASE;

  it('in a new data folder starts with the tables and built-in types made, their version current', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weft-boot-test-'));
    dirs.push(dir);
    const driver = await openPgliteDriver(join(dir, 'data'), NEW_PGLITE_DATABASE);
    try {
      expect(await meta(driver, 'ddl_version')).toBe(DDL_VERSION);
      const boss = await driver.query<{ n: string }>('SELECT count(*) AS n FROM pgboss.version');
      expect(Number(boss.rows[0]?.n)).toBe(1);
      // The automation runs' queue is there: the worker may start after the server listens.
      const queues = await driver.query<{ name: string }>('SELECT name FROM pgboss.queue');
      expect(queues.rows.map((r) => r.name)).toContain(AUTOMATION_RUN);
      const types = await driver.query<{ name: string }>('SELECT name FROM svc_types');
      expect(types.rows.map((r) => r.name).sort()).toEqual([
        'Collaboration~Documents/Document',
        'svc/app',
        'svc/file',
        'svc/user',
      ]);
      // No identity yet: that is the workspace's own (made by its first start), never the template's.
      expect(await meta(driver, 'schema_id')).toBeUndefined();
      const start = recording(driver);
      await createSystemTables(start.driver);
      await start.driver.transaction((tx) => ensureBuiltinTypes(tx));
      expect(ddl(start.statements)).toEqual([]);
      expect(await meta(driver, 'schema_id')).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      await driver.close();
    }
  });

  it('in memory starts from the same template, and two databases do not share their identity', async () => {
    const a = await openPgliteDriver(undefined, NEW_PGLITE_DATABASE);
    const b = await openPgliteDriver(undefined, NEW_PGLITE_DATABASE);
    try {
      for (const driver of [a, b]) {
        expect(await meta(driver, 'ddl_version')).toBe(DDL_VERSION);
        await createSystemTables(driver);
      }
      expect(await meta(a, 'schema_id')).not.toBe(await meta(b, 'schema_id'));
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('is copied from a template of its own for each schema', () => {
    expect(templatePath(sql)).not.toBe(templatePath(`${sql}\nCREATE TABLE more (id int);`));
    expect(templatePath(sql)).toBe(templatePath(NEW_PGLITE_DATABASE.sql));
  });
});
