// The kit at scale: one full + delta run against a core app serving N generated rows (pages of
// 1,000 with resume()), each run in a child process so that its peak RSS is measured alone. The
// child runs the kit's build, as `weft check` does (the packages are built first when the build
// is missing or older than the sources); the largest size also runs from the sources through tsx,
// whose loader thread and compiler the build does not load, for comparison.
// Sizes: BENCH_KIT_SCALE_ROWS (comma-separated, default "100000,1000000").
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildIsFresh, CONDITION } from '../../../scripts/checkout-entry.mjs';
import { startScaleApp } from './scale-app.js';

export interface ScaleRun {
  rows: number;
  seconds: number;
  maxRss: number;
  heapUsed: number;
  deltaRows: number;
  failed: string[];
  warned: string[];
}

/** Issue 27's target for the kit's peak RSS at 1M rows. */
const KIT_RSS_TARGET_MB = 200;

const CHILD = fileURLToPath(new URL('./scale-child.mjs', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Builds the packages when their build is missing or older than the sources. */
export function ensureBuild(): void {
  if (buildIsFresh()) return;
  console.log('bench conformance-scale: building the packages first (pnpm build)');
  const built = spawnSync('npx', ['-y', 'pnpm@10.34.8', 'build'], { cwd: ROOT, stdio: 'ignore' });
  if (built.status !== 0 || !buildIsFresh()) throw new Error('pnpm build failed');
}

/** How the child loads the kit: its build (as `weft check` runs it) or its sources through tsx. */
export type KitLoad = 'build' | 'tsx';

/** Runs the kit in a child process against a scale app of `rows` items (served by this process). */
export async function runKitAt(
  rows: number,
  options: { drift?: boolean; load?: KitLoad } = {},
): Promise<ScaleRun> {
  const load = options.load ?? 'build';
  if (load === 'build') ensureBuild();
  const app = await startScaleApp({ rows });
  try {
    const loader = load === 'build' ? [`--conditions=${CONDITION}`] : ['--import', 'tsx'];
    // The app answers from this process while the child runs, so the child must not block it.
    const child = spawn(
      process.execPath,
      [...loader, '--expose-gc', CHILD, app.url, ...(options.drift ? ['--drift'] : [])],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    const line = out.trim().split('\n').at(-1) ?? '';
    if (code !== 0 || !line.startsWith('{')) throw new Error(`kit child exited ${code}: ${out.slice(-500)}`);
    return { ...(JSON.parse(line) as Omit<ScaleRun, 'rows'>), rows } as ScaleRun;
  } finally {
    await app.close();
  }
}

function label(rows: number): string {
  return rows >= 1e6 && rows % 1e6 === 0 ? `${rows / 1e6}M` : rows >= 1e3 ? `${rows / 1e3}k` : `${rows}`;
}

export async function benchKitScale(): Promise<boolean> {
  const sizes = (process.env.BENCH_KIT_SCALE_ROWS ?? '100000,1000000')
    .split(',')
    .map((s) => Number(s.trim()))
    .filter((n) => Number.isInteger(n) && n > 0);
  const runs: ScaleRun[] = [];
  let ok = true;
  for (const rows of sizes) {
    const run = await runKitAt(rows);
    runs.push(run);
    if (run.failed.length > 0) {
      console.error(`bench conformance-scale: ${label(rows)} run failed checks: ${run.failed.join('; ')}`);
      ok = false;
    }
  }
  const parts = runs.map(
    (r) =>
      `${label(r.rows)} rows ${Math.round(r.rows / r.seconds).toLocaleString('en-US')} rows/s, peak RSS ${Math.round(r.maxRss / 2 ** 20)} MB`,
  );
  const first = runs[0];
  const last = runs.at(-1);
  const linearity =
    first && last && last !== first
      ? `; per-row time ${label(last.rows)} vs ${label(first.rows)} ratio ${(last.seconds / last.rows / (first.seconds / first.rows)).toFixed(2)}`
      : '';
  const peak = Math.max(...runs.map((r) => r.maxRss));
  console.log(
    `bench conformance-scale: ${parts.join('; ')}${linearity}; peak RSS ${Math.round(peak / 2 ** 20)} MB, target 300 MB, ratio ${(peak / (300 * 2 ** 20)).toFixed(2)}`,
  );
  // Issue 27's row: the kit's peak at the largest size (1M rows by default), full + delta.
  if (last) {
    const sources = await runKitAt(last.rows, { load: 'tsx' });
    if (sources.failed.length > 0) ok = false;
    const mb = (b: number) => Math.round(b / 2 ** 20);
    console.log(
      `bench kit-rss (${label(last.rows)} rows, full + delta): weft ${mb(last.maxRss)} MB, target ${KIT_RSS_TARGET_MB} MB, ratio ${(last.maxRss / (KIT_RSS_TARGET_MB * 2 ** 20)).toFixed(2)} (the build, as weft check runs it; from the sources through tsx ${mb(sources.maxRss)} MB)`,
    );
  }
  return ok;
}

/**
 * The kit's peak memory with and without `--drift` (its three extra syncs keep digests of ids and
 * values, never rows) at BENCH_KIT_DRIFT_ROWS rows (default 100,000).
 */
export async function benchKitDrift(): Promise<boolean> {
  const rows = Number(process.env.BENCH_KIT_DRIFT_ROWS ?? 100_000);
  const without = await runKitAt(rows);
  const withDrift = await runKitAt(rows, { drift: true });
  const mb = (b: number) => Math.round(b / 2 ** 20);
  console.log(
    `bench conformance-drift: ${label(rows)} rows, peak RSS without --drift ${mb(without.maxRss)} MB (${without.seconds.toFixed(1)} s), with --drift ${mb(withDrift.maxRss)} MB (${withDrift.seconds.toFixed(1)} s); peak ratio ${(withDrift.maxRss / without.maxRss).toFixed(2)}, target 1.2`,
  );
  return without.failed.length === 0 && withDrift.failed.length === 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!(await benchKitScale())) process.exitCode = 1;
  if (!(await benchKitDrift())) process.exitCode = 1;
}
