// The heap growth cap is process-wide: it is asked for on PGlite only, and never over a value the
// process was started with (on its command line or in NODE_OPTIONS).
import { heapBoundFlags } from '@weft/sync-engine';
import { expect, it } from 'vitest';
import { DEFAULT_PGLITE_PERCENT, heapBoundsFor } from './heap-growth.js';

const flags = (engine: 'pglite' | 'postgres', percent: number | undefined, startedWith: string[] = []) =>
  heapBoundFlags(heapBoundsFor(engine, percent), startedWith);

it('caps old-space growth on PGlite by default, and leaves Postgres alone', () => {
  expect(flags('pglite', undefined)).toEqual([`--heap-growing-percent=${DEFAULT_PGLITE_PERCENT}`]);
  expect(flags('pglite', 80, ['--import', 'tsx'])).toEqual(['--heap-growing-percent=80']);
  expect(flags('postgres', undefined)).toEqual([]);
  expect(flags('postgres', 30)).toEqual(['--heap-growing-percent=30']);
});

it('is turned off with 0, and yields to a value the process was started with', () => {
  expect(flags('pglite', 0)).toEqual([]);
  expect(flags('pglite', undefined, ['--heap-growing-percent=20'])).toEqual([]);
  expect(flags('pglite', 50, ['--max-old-space-size=512', '--heap_growing_percent=10'])).toEqual([]);
});
