// `pnpm test:durations`: after a test run (the whole suite, or some files), writes the durations
// vitest cached for the files that ran into durations.json, which orders the next runs
// (sequencer.ts). Commit the result when the order of the slow files changed.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Durations, refreshed } from './order.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const tablePath = fileURLToPath(new URL('./durations.json', import.meta.url));
const cacheDir = join(root, 'node_modules/.vite/vitest');

type Result = [string, { duration: number; failed: boolean }];

/** The entries of vitest's cache file (node_modules/.vite/vitest/<hash>/results.json) that have a duration. */
function cachedResults(file: string): Result[] {
  const { results } = JSON.parse(readFileSync(file, 'utf8')) as { results?: unknown };
  if (!Array.isArray(results)) return [];
  return results.filter(
    (r): r is Result => Array.isArray(r) && typeof r[0] === 'string' && typeof r[1]?.duration === 'number',
  );
}

const results = existsSync(cacheDir)
  ? readdirSync(cacheDir)
      .map((dir) => join(cacheDir, dir, 'results.json'))
      .filter((file) => existsSync(file))
      .flatMap(cachedResults)
  : [];
if (results.length === 0) {
  console.error(`No vitest results in ${cacheDir}: run the tests first.`);
  process.exit(1);
}
const table = JSON.parse(readFileSync(tablePath, 'utf8')) as Durations;
const next = refreshed(table, results, (key) => existsSync(join(root, key.slice(key.indexOf(':') + 1))));
writeFileSync(tablePath, `${JSON.stringify(next, null, 2)}\n`);
console.log(`${tablePath}: ${Object.keys(next).length} files, ${results.length} durations read`);
