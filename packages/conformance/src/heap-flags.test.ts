// The kit's heap growth cap is process-wide: never set over a value the process was started with
// (on its command line or in NODE_OPTIONS).
import { expect, it } from 'vitest';
import { HEAP_GROWING_PERCENT, heapFlag } from './heap-flags.js';

it('caps old-space growth', () => {
  expect(heapFlag([])).toBe(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  expect(heapFlag(['--import', 'tsx', '--max-old-space-size=512'])).toBe('--heap-growing-percent=50');
});

it('yields to a value the process was started with', () => {
  expect(heapFlag(['--heap-growing-percent=20'])).toBeUndefined();
  expect(heapFlag(['--expose-gc', '--heap_growing_percent=10'])).toBeUndefined();
});
