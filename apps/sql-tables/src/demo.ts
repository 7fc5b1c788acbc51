// The embedded demo database: PGlite (Postgres in WebAssembly, in this process) seeded with a
// small lending library. Used when neither an account nor DATABASE_URL names a database, so the
// app runs with no set-up. Its cluster lives in a temporary directory, removed on close.
import { type Database, pgliteDatabase } from './database.js';
import { DEMO_SEED } from './demo-seed.js';
import { temporaryCluster } from './embedded.js';

export async function openDemoDatabase(): Promise<Database> {
  const cluster = await temporaryCluster('weft-sql-tables-demo-');
  try {
    await cluster.db.exec(DEMO_SEED);
  } catch (error) {
    await cluster.close();
    throw error;
  }
  const db = await pgliteDatabase(cluster.db);
  return { ...db, close: () => cluster.close() };
}
