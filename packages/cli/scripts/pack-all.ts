// `pnpm packs`: builds every package under packages/ and writes the tarballs a registry would
// serve (`pnpm pack`: dist/ exports, `workspace:*` turned into versions) to dist/packs/.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIsFresh } from '../../../scripts/checkout-entry.mjs';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const PACKS_DIR = join(ROOT, 'dist', 'packs');

/** pnpm as the running script got it (npm_execpath), else the pinned version through npx. */
function pnpm(args: string[], cwd: string): string {
  const execPath = process.env.npm_execpath;
  const [command, prefix] =
    execPath && /pnpm/.test(execPath)
      ? [process.execPath, [execPath]]
      : [process.platform === 'win32' ? 'npx.cmd' : 'npx', ['-y', 'pnpm@10.34.8']];
  return execFileSync(command, [...prefix, ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export interface Pack {
  file: string;
  bytes: number;
}

/**
 * Builds and packs every package; resolves with the tarballs written. `progress` hears each step
 * before it starts: the build alone takes a minute or two, which must not look like a hang.
 * `reuseFreshBuild` packs a build that is newer than every source as it is (the test suite's,
 * which `pnpm test` has just made) instead of making it again; `pnpm packs` always builds.
 */
export function packAll(
  progress: (step: string) => void = () => {},
  options: { reuseFreshBuild?: boolean } = {},
): Pack[] {
  if (options.reuseFreshBuild && buildIsFresh()) {
    progress('reusing the build (newer than every source)');
  } else {
    progress('building every package (tsc, a minute or two)');
    pnpm(['-r', '--filter', './packages/*', 'build'], ROOT);
  }
  rmSync(PACKS_DIR, { recursive: true, force: true });
  mkdirSync(PACKS_DIR, { recursive: true });
  const packages = join(ROOT, 'packages');
  const names = readdirSync(packages).sort();
  names.forEach((name, i) => {
    progress(`packing ${name} (${i + 1}/${names.length})`);
    pnpm(['pack', '--pack-destination', PACKS_DIR], join(packages, name));
  });
  return readdirSync(PACKS_DIR)
    .filter((f) => f.endsWith('.tgz'))
    .sort()
    .map((f) => ({ file: join(PACKS_DIR, f), bytes: statSync(join(PACKS_DIR, f)).size }));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = Date.now();
  const packs = packAll((step) => console.log(`${((Date.now() - started) / 1000).toFixed(0)} s  ${step}…`));
  for (const pack of packs) {
    console.log(`${pack.file}  ${(pack.bytes / 1024).toFixed(1)} kB`);
  }
}
