// The embedded demo database: PGlite (Postgres in WebAssembly, in this process, in memory)
// seeded with a small lending library. Used when neither an account nor DATABASE_URL names a
// database, so the app runs with no set-up.
import { PGlite } from '@electric-sql/pglite';
import { type Database, pgliteDatabase } from './database.js';
import { DEMO_SEED } from './demo-seed.js';

export async function openDemoDatabase(): Promise<Database> {
  const db = await PGlite.create();
  await db.exec(DEMO_SEED);
  return pgliteDatabase(db);
}
