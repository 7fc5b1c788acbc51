// `pnpm workspace`: the workspace's server from its build, or from its sources when the build is
// missing or older than them (see checkout-entry.mjs). See docs/workspace.md.
import { runEntry } from './checkout-entry.mjs';

await runEntry('workspace', 'main');
