// Times one full conformance run against the reference app serving 5,000 rows in 3 types,
// pages of 500. Prints one line: measured time, target and their ratio (below 1 is good).
// Then the scale line (bench/scale.ts): the kit at 100k and 1M rows, rows/s and peak RSS; and the
// kit's peak RSS with and without --drift at 100k rows.
import { runConformance } from '../src/index.js';
import { ACCOUNT, ACTIONS_FIXTURE, startReferenceApp } from '../test/fixtures/reference-app.js';
import { benchKitDrift, benchKitScale } from './scale.js';

const TARGET_S = 5;
const counts = { user: 1000, project: 500, issue: 3500 };
const total = counts.user + counts.project + counts.issue;

const app = await startReferenceApp({ counts, pageSize: 500 });
try {
  // One warm-up run so that module loading and JIT are not measured.
  await runConformance(app.url, { account: ACCOUNT, actions: ACTIONS_FIXTURE });
  (globalThis as { gc?: () => void }).gc?.();
  const started = performance.now();
  const report = await runConformance(app.url, { account: ACCOUNT, actions: ACTIONS_FIXTURE });
  const seconds = (performance.now() - started) / 1000;
  const checked = Object.values(report.sync).reduce((n, s) => n + s.count, 0);
  if (!report.ok || checked !== total) {
    console.error(`bench conformance: unexpected report (ok ${report.ok}, ${checked} of ${total} rows)`);
    process.exitCode = 1;
  }
  console.log(
    `bench conformance: ${checked.toLocaleString('en-US')} items checked in ${seconds.toFixed(2)} s, target ${TARGET_S} s, ratio ${(seconds / TARGET_S).toFixed(2)}`,
  );
} finally {
  await app.close();
}

if (!(await benchKitScale())) process.exitCode = 1;
if (!(await benchKitDrift())) process.exitCode = 1;
