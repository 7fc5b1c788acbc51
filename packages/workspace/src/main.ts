// `pnpm workspace`: serves the data API on HOST:PORT (default 127.0.0.1:3100). See docs/workspace.md.
import { configFromEnv, everyInterfaceNotice } from './config.js';
import { startWorkspace } from './start-workspace.js';

const config = configFromEnv(process.env);
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
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
