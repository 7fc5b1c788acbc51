// Runs every package's benchmark (packages/*/bench/index.ts) one after another, so that
// each measures on a quiet machine. Each prints one line per comparison.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const only = process.argv.slice(2);
let failed = false;
for (const dir of ['packages', 'apps']) {
  for (const name of readdirSync(dir).sort()) {
    const entry = join(dir, name, 'bench', 'index.ts');
    if (!existsSync(entry) || (only.length > 0 && !only.includes(name))) continue;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', entry], { stdio: 'inherit' });
    if (run.status !== 0) failed = true;
  }
}
// Benchmarks beside a package's own index (the workspace's app host sync, its Verify, and what
// its fibery namespace costs).
for (const entry of [
  'packages/workspace/bench/host-sync.ts',
  'packages/workspace/bench/drift-verify.ts',
  'packages/workspace/bench/namespace.ts',
]) {
  const name = entry.slice(entry.lastIndexOf('/') + 1, -'.ts'.length);
  if (!existsSync(entry) || (only.length > 0 && !only.includes(name))) continue;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', entry], { stdio: 'inherit' });
  if (run.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
