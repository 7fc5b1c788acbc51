// The databases the tests run on: the embedded demo (PGlite, in a worker thread) always, and a real
// Postgres when WEFT_TEST_DATABASE_URL is set, seeded with the same demo in a schema of its own
// that is dropped afterwards.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { type DatabaseSource, databaseSource } from '../src/databases.js';
import { DEMO_SEED } from '../src/demo-seed.js';
import { openDemoDatabase } from '../src/demo.js';
import type { WorkerDatabase } from '../src/worker-database.js';

export interface TestDatabase {
  name: 'pglite' | 'postgres';
  source: DatabaseSource;
  /** The account that names the demo database. */
  account: Record<string, string>;
  /** Runs SQL against the demo database (to change rows between syncs). */
  sql(text: string): Promise<void>;
  /** On PGlite: the demo's worker, whose `generation` counts restarts. */
  embedded?: WorkerDatabase;
  close(): Promise<void>;
}

export const PG_URL = process.env.WEFT_TEST_DATABASE_URL;

export async function pgliteDemo(): Promise<TestDatabase> {
  const demo: Promise<WorkerDatabase> = openDemoDatabase();
  const db = await demo;
  const source = databaseSource({ embedded: () => demo });
  return {
    name: 'pglite',
    source,
    embedded: db,
    // Not empty: the service always sends system keys, and core answers an empty account with
    // the static config only.
    account: { schemas: 'public' },
    sql: async (text) => void (await db.query(text)),
    close: async () => {
      await source.close();
      await db.close();
    },
  };
}

export async function postgresDemo(url: string): Promise<TestDatabase> {
  const schema = `weft_sqltest_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.query(`SET search_path TO ${schema}`);
  await admin.query(DEMO_SEED);
  const source = databaseSource({
    embedded: () => Promise.reject(new Error('no embedded database in this test')),
  });
  return {
    name: 'postgres',
    source,
    account: { url, schemas: schema },
    sql: async (text) => void (await admin.query(text)),
    close: async () => {
      await source.close();
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    },
  };
}
