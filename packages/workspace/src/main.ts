// `pnpm workspace`: serves the data API on HOST:PORT (default 127.0.0.1:3100). See docs/workspace.md.
import { resolve } from 'node:path';
import { configFromEnv, everyInterfaceNotice } from './config.js';
import { DataFolderInUse, lockDataFolder } from './db/data-folder-lock.js';
import { startWorkspace } from './start-workspace.js';

const config = configFromEnv(process.env);
// A PGlite folder is one process' at a time, as with weft dev (db/data-folder-lock.ts).
let lock: ReturnType<typeof lockDataFolder> | undefined;
try {
  if (config.database.kind === 'pglite')
    lock = lockDataFolder(resolve(config.database.dataDir), 'pnpm workspace');
} catch (error) {
  if (!(error instanceof DataFolderInUse)) throw error;
  console.error(`pnpm workspace: ${error.message}`);
  process.exit(1);
}
const workspace = await startWorkspace(config);
console.log(`Workspace listening on ${workspace.url}`);
if (workspace.namespace !== 'svc') console.log(`The data API speaks the ${workspace.namespace} namespace`);
const notice = everyInterfaceNotice(config.host);
if (notice) console.log(notice);
if (workspace.generatedAdminToken) console.log(`Admin token: ${workspace.adminToken}`);

let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (closing) return;
    closing = true;
    workspace.close().then(
      () => {
        lock?.release();
        process.exit(0);
      },
      () => process.exit(1),
    );
  });
}
