// Runs a package's entry point (`weft`, `pnpm workspace`) in the weft checkout: its build when
// every package's build (packages/*/dist, made by `pnpm build`) is newer than its sources, else the
// sources through tsx. Plain JavaScript, so choosing costs no compiler: loading the sources through
// tsx takes seconds, the build a fraction of that.
//
// In the checkout a package's `exports` point at its TypeScript sources (what the tests, the type
// checker and tsx read); the `weft-dist` condition points them at the build instead. Node takes
// conditions only on its command line, so a process started without it runs the build in a child
// process that has it.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const CONDITION = 'weft-dist';
const ROOT = new URL('../', import.meta.url);
const PACKAGES = new URL('packages/', ROOT);

/** The newest modification time of a source tree (tests left out: the build leaves them out too). */
function newest(dir) {
  let time = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) time = Math.max(time, newest(path));
    else if (!/\.test(-d)?\.ts$/.test(entry.name)) time = Math.max(time, statSync(path).mtimeMs);
  }
  return time;
}

/** True when every package with sources has a build made after its last source change. */
export function buildIsFresh(packages = PACKAGES) {
  for (const name of readdirSync(packages)) {
    const src = fileURLToPath(new URL(`${name}/src`, packages));
    if (!existsSync(src)) continue;
    const built = fileURLToPath(new URL(`${name}/dist/index.js`, packages));
    if (!existsSync(built) || statSync(built).mtimeMs < newest(src)) return false;
  }
  return true;
}

const hasCondition = () =>
  [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some(
    (arg, i, all) => arg === `--conditions=${CONDITION}` || (arg === '-C' && all[i + 1] === CONDITION),
  );

/**
 * Runs `node <args>` with this process' Node options (the condition aside), arguments, streams
 * and exit status; signals are passed on.
 */
function runChild(args) {
  const options = process.execArgv.filter((arg) => arg !== `--conditions=${CONDITION}`);
  // Its own process group, so a Ctrl-C reaches it once (passed on from here), not twice.
  const child = spawn(process.execPath, [...options, ...args, ...process.argv.slice(2)], {
    stdio: 'inherit',
    detached: true,
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? (signal ? 1 : 0);
  });
}

/** Runs `packages/<pkg>/src/<entry>.ts`, or its build (see above). */
export async function runEntry(pkg, entry) {
  const source = new URL(`packages/${pkg}/src/${entry}.ts`, ROOT);
  const built = new URL(`packages/${pkg}/dist/${entry}.js`, ROOT);
  const fresh = buildIsFresh();
  if (fresh && hasCondition()) await import(built.href);
  else if (fresh) runChild([`--conditions=${CONDITION}`, fileURLToPath(built)]);
  else if (!hasCondition()) {
    const { register } = await import('tsx/esm/api');
    register();
    await import(source.href);
  } else {
    // Sources must not meet a stale build of another package: run them without the condition.
    runChild(['--import', import.meta.resolve('tsx'), fileURLToPath(source)]);
  }
}
