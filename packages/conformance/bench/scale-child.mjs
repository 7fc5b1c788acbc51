// One conformance run in a process of its own, so that its peak RSS is the kit's alone. Plain
// JavaScript, so that it runs the kit's build as `weft check` does:
// `node --conditions=weft-dist --expose-gc scale-child.mjs <url> [--drift]`; with `--import tsx`
// and no condition it runs the sources instead. Prints one JSON line: the run's seconds, the rows
// checked, peak RSS (bytes), the heap retained after GC at the end, and failed check ids.
import { runConformance } from '@weft/conformance';

const url = process.argv[2];
if (!url) throw new Error('usage: scale-child.mjs <app-url> [--drift]');
const started = performance.now();
const drift = process.argv.includes('--drift');
const report = await runConformance(url, {
  maxPages: 100_000,
  timeoutMs: 60_000,
  ...(drift ? { drift } : {}),
});
const seconds = (performance.now() - started) / 1000;
globalThis.gc?.();
const heapUsed = process.memoryUsage().heapUsed;
const rows = Object.values(report.sync).reduce((n, s) => n + s.count, 0);
const deltaRows = Object.values(report.sync).reduce((n, s) => n + (s.delta?.count ?? 0), 0);
console.log(
  JSON.stringify({
    seconds,
    rows,
    deltaRows,
    // maxRSS is in kilobytes.
    maxRss: process.resourceUsage().maxRSS * 1024,
    heapUsed,
    // The scale app's delta is made up (its full syncs never change): the drift check fails on it.
    failed: report.checks
      .filter((c) => c.status === 'fail' && c.id !== 'drift.rows')
      .map((c) => `${c.id}: ${c.reason ?? ''}`.slice(0, 300)),
    warned: report.checks.filter((c) => c.status === 'warn').map((c) => c.title),
    // Kept reachable until here, so the heap measured above includes what the report holds.
    checks: report.checks.length,
  }),
);
