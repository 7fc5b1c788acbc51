// The embedded demo database: PGlite (Postgres in WebAssembly, in a worker thread) seeded with a
// small lending library. Used when neither an account nor DATABASE_URL names a database, so the
// app runs with no set-up. Its cluster lives in a temporary directory, removed on close.
import { DEMO_SEED } from './demo-seed.js';
import { temporaryCluster } from './embedded.js';
import type { WorkerDatabase } from './worker-database.js';

export async function openDemoDatabase(): Promise<WorkerDatabase> {
  const cluster = await temporaryCluster('weft-sql-tables-demo-');
  try {
    await cluster.db.exec(DEMO_SEED);
  } catch (error) {
    await cluster.close();
    throw error;
  }
  // Closing the demo removes its directory too.
  return Object.assign(cluster.db, { close: () => cluster.close() });
}
