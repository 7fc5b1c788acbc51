// Time to first answer, as a developer feels it, each from a fresh process (medians of rounds):
//   boot-workspace   `pnpm workspace` (PGlite in memory) until "Workspace listening", from the
//                    build and, beside it, from the sources through tsx. Each start runs on until
//                    it has made the spare copy of the database template the next start takes (as
//                    a developer's start does: see packages/workspace/src/db/template-spare.ts)
//   weft-dev-ready   `weft dev apps/bookshelf/src/main.ts` in a new data folder until "Ready."
//                    (3,312 rows synced)
//   weft-dev-restart a file of the app touched until "Synced again" (the app restarted, synced)
//   cli-version      `weft --version`: the bin with a fresh build
//   cli-version-pnpm `npx -y pnpm@10.34.8 weft --version`, beside pnpm printing its own version
// The build is made first when it is missing or older than the sources (see
// scripts/checkout-entry.mjs). WEFT_BENCH_BOOT_ROUNDS sets the rounds (default 5; weft dev 3).
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIsFresh } from '../../../scripts/checkout-entry.mjs';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const ROUNDS = Number(process.env.WEFT_BENCH_BOOT_ROUNDS ?? 5);
const DEV_ROUNDS = Math.max(1, Math.min(ROUNDS, 3));
const PNPM = ['-y', 'pnpm@10.34.8'];
const BOOKSHELF = join(ROOT, 'apps/bookshelf/src/main.ts');
const CONDITION = '--conditions=weft-dist';

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
};
const seconds = (x: number) => `${x.toFixed(2)} s`;

/** The environment of a fresh shell: no package manager variables, no WEFT_ settings. */
function env(extra: Record<string, string>): NodeJS.ProcessEnv {
  const clean: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!/^(npm_|pnpm_|INIT_CWD$|WEFT_|PORT$)/i.test(k)) clean[k] = v;
  return { ...clean, ...extra };
}

interface Started {
  child: ChildProcess;
  /** resolves with the seconds since `from` (default: the start) once output from now on matches `pattern` */
  until(pattern: RegExp, from?: number): Promise<number>;
  stop(): Promise<void>;
}

/** Starts a command in its own process group, reading its output. */
function start(command: string, args: string[], extra: Record<string, string>): Started {
  const started = performance.now();
  const child = spawn(command, args, { cwd: ROOT, env: env(extra), detached: true });
  let out = '';
  const waiters = new Set<() => void>();
  const read = (chunk: Buffer) => {
    out += chunk.toString();
    for (const w of waiters) w();
  };
  child.stdout?.on('data', read);
  child.stderr?.on('data', read);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return {
    child,
    until: (pattern, from = started) =>
      new Promise((resolve, reject) => {
        const mark = out.length;
        const timer = setTimeout(
          () => reject(new Error(`no ${pattern} within 5 minutes:\n${out.slice(-2000)}`)),
          300_000,
        );
        const check = () => {
          if (pattern.test(out.slice(mark))) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve((performance.now() - from) / 1000);
          } else if (child.exitCode !== null) {
            clearTimeout(timer);
            reject(new Error(`${command} exited:\n${out.slice(-2000)}`));
          }
        };
        waiters.add(check);
        child.once('exit', check);
        check();
      }),
    async stop() {
      if (child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGINT');
      const timer = setTimeout(() => child.pid && process.kill(-child.pid, 'SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

async function timeTo(command: string, args: string[], extra: Record<string, string>, pattern: RegExp) {
  const run = start(command, args, extra);
  try {
    return await run.until(pattern);
  } finally {
    await run.stop();
  }
}

/** The newest spare template copy's time (pglite-template.ts keeps them in this per-user folder). */
function newestSpare(): number {
  const dir = join(tmpdir(), `weft-pglite-${process.getuid?.() ?? 'user'}`);
  try {
    return Math.max(
      0,
      ...readdirSync(dir)
        .filter((name) => name.endsWith('.spare'))
        .map((name) => statSync(join(dir, name)).mtimeMs),
    );
  } catch {
    return 0;
  }
}

/** Waits (up to a minute) for a spare made after `since`. */
async function spareMadeAfter(since: number): Promise<void> {
  for (let waited = 0; newestSpare() < since && waited < 60_000; waited += 250)
    await new Promise((r) => setTimeout(r, 250));
}

/** Like timeTo, then keeps the process until it has made the next start's spare template copy. */
async function timeToThenSpare(
  command: string,
  args: string[],
  extra: Record<string, string>,
  pattern: RegExp,
) {
  const since = Date.now();
  const run = start(command, args, extra);
  try {
    const time = await run.until(pattern);
    await spareMadeAfter(since);
    return time;
  } finally {
    await run.stop();
  }
}

async function rounds(n: number, once: () => Promise<number>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) times.push(await once());
  return median(times);
}

if (!buildIsFresh()) {
  console.log('bench boot: building the packages first (pnpm build)');
  const built = spawnSync('npx', [...PNPM, 'build'], { cwd: ROOT, stdio: 'ignore' });
  if (built.status !== 0 || !buildIsFresh()) throw new Error('pnpm build failed');
}

const memory = { WEFT_DATA_DIR: ':memory:', PORT: '0' };
const listening = /Workspace listening/;
// One start unmeasured first: it makes the spare the first measured start takes.
await timeToThenSpare(process.execPath, [CONDITION, 'scripts/workspace.mjs'], memory, listening);
const built = await rounds(ROUNDS, () =>
  timeToThenSpare(process.execPath, [CONDITION, 'scripts/workspace.mjs'], memory, listening),
);
const sources = await rounds(ROUNDS, () =>
  timeToThenSpare(process.execPath, ['--import', 'tsx', 'packages/workspace/src/main.ts'], memory, listening),
);
console.log(
  `bench boot-workspace: weft ${seconds(built)}, target 1.5 s (from the sources through tsx ${seconds(sources)})`,
);

const ready: number[] = [];
const restarts: number[] = [];
for (let i = 0; i < DEV_ROUNDS; i++) {
  const folder = mkdtempSync(join(tmpdir(), 'weft-bench-dev-'));
  const dev = start(process.execPath, ['packages/cli/bin/weft.js', 'dev', BOOKSHELF], {
    PORT: '0',
    INIT_CWD: folder,
  });
  try {
    ready.push(await dev.until(/Ready\./));
    const touched = performance.now();
    const now = new Date();
    utimesSync(BOOKSHELF, now, now);
    restarts.push(await dev.until(/Synced again|Sync after the restart failed/, touched));
  } finally {
    await dev.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}
console.log(
  `bench weft-dev-ready: weft ${seconds(median(ready))}, target 5 s (3,312 rows, a new data folder)`,
);
console.log(
  `bench weft-dev-restart: weft ${seconds(median(restarts))}, target 2 s (a file touched until synced again)`,
);

// Beside each, what is not weft's: an empty Node process, and pnpm (through npx) printing its own version.
const version = /\d+\.\d+\.\d+/;
const bin = await rounds(ROUNDS, () =>
  timeTo(process.execPath, ['packages/cli/bin/weft.js', '--version'], {}, version),
);
const node = await rounds(ROUNDS, () => timeTo(process.execPath, ['-p', '"1.0.0"'], {}, version));
const viaPnpm = await rounds(ROUNDS, () =>
  timeTo('npx', [...PNPM, 'weft', '--version'], {}, /^\d+\.\d+\.\d+/m),
);
const pnpmAlone = await rounds(ROUNDS, () => timeTo('npx', [...PNPM, '--version'], {}, version));
console.log(
  `bench cli-version: weft ${seconds(bin)} (the bin, built; an empty node process ${seconds(node)}), target 0.3 s`,
);
// pnpm's own start (through npx) is most of this row: its own line says so rather than hide it.
console.log(
  `bench cli-version-pnpm: weft ${seconds(viaPnpm)}, pnpm alone ${seconds(pnpmAlone)}, target 1 s (weft's part ${seconds(Math.max(0, viaPnpm - pnpmAlone))})`,
);
