// The heap growth cap is process-wide: it is asked for on PGlite only, and never over a value the
// process was started with (on its command line or in NODE_OPTIONS).
import { expect, it } from 'vitest';
import { DEFAULT_PGLITE_PERCENT, heapGrowthFlag } from './heap-growth.js';

it('caps old-space growth on PGlite by default, and leaves Postgres alone', () => {
  expect(heapGrowthFlag('pglite', undefined, [])).toBe(`--heap-growing-percent=${DEFAULT_PGLITE_PERCENT}`);
  expect(heapGrowthFlag('pglite', 80, ['--import', 'tsx'])).toBe('--heap-growing-percent=80');
  expect(heapGrowthFlag('postgres', undefined, [])).toBeUndefined();
  expect(heapGrowthFlag('postgres', 30, [])).toBe('--heap-growing-percent=30');
});

it('is turned off with 0, and yields to a value the process was started with', () => {
  expect(heapGrowthFlag('pglite', 0, [])).toBeUndefined();
  expect(heapGrowthFlag('pglite', undefined, ['--heap-growing-percent=20'])).toBeUndefined();
  expect(
    heapGrowthFlag('pglite', 50, ['--max-old-space-size=512', '--heap_growing_percent=10']),
  ).toBeUndefined();
});
