// Run as a process of its own (see embedded.ts): creates an empty PGlite cluster in the directory
// named by the first argument, then exits. initdb runs in a WebAssembly instance of its own and
// leaves hundreds of megabytes behind; in this short-lived process they are returned to the
// system on exit instead of staying in the serving process's RSS.
import { PGlite } from '@electric-sql/pglite';
import { PGLITE_SETTINGS } from './pglite-settings.js';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: init-cluster <directory>');
  process.exit(2);
}
const db = await PGlite.create(dir, { postgresqlconf: PGLITE_SETTINGS });
await db.close();
