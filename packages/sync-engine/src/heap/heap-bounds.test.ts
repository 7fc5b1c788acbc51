// The heap bounds are process-wide: each is set only when asked for, and never over a value the
// process was started with (on its command line or in NODE_OPTIONS).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { heapBoundFlags } from './heap-bounds.js';

describe('heapBoundFlags', () => {
  it('gives the flags asked for', () => {
    expect(heapBoundFlags({ growingPercent: 50 }, [])).toEqual(['--heap-growing-percent=50']);
    expect(heapBoundFlags({ growingPercent: 50, semiSpaceGrowthFactor: 1 }, ['--import', 'tsx'])).toEqual([
      '--heap-growing-percent=50',
      '--semi-space-growth-factor=1',
    ]);
    expect(heapBoundFlags({}, [])).toEqual([]);
    expect(heapBoundFlags({ growingPercent: 0 }, [])).toEqual([]);
  });

  it('yields to a value the process was started with', () => {
    const both = { growingPercent: 50, semiSpaceGrowthFactor: 1 };
    expect(heapBoundFlags(both, ['--heap_growing_percent=10'])).toEqual(['--semi-space-growth-factor=1']);
    expect(heapBoundFlags(both, ['--max-semi-space-size=8'])).toEqual(['--heap-growing-percent=50']);
    expect(heapBoundFlags(both, ['--heap-growing-percent=20', '--semi_space_growth_factor=4'])).toEqual([]);
  });
});

const MODULE = fileURLToPath(new URL('./heap-bounds.ts', import.meta.url));

/**
 * How much the young generation grew (MB) while short-lived objects that survive a scavenge or
 * two were allocated, with boundHeap called (or not) just before.
 */
function youngGenerationGrowth(bound: boolean, nodeArgs: string[] = []): number {
  const script = `
    import v8 from 'node:v8';
    import { boundHeap } from ${JSON.stringify(MODULE)};
    const young = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
    if (${bound}) boundHeap({ semiSpaceGrowthFactor: 1 });
    const before = young();
    // Pages of rows kept for a while, as a checked page is: many survive a scavenge.
    let kept = [];
    for (let page = 0; page < 400; page++) {
      const rows = [];
      for (let n = 0; n < 2000; n++) rows.push({ id: 'row-' + page + '-' + n, name: 'Row ' + n, points: n });
      kept.push(rows);
      if (kept.length > 4) kept.shift();
    }
    console.log((young() - before) / 2 ** 20);
  `;
  const run = spawnSync(
    process.execPath,
    [...nodeArgs, '--import', 'tsx', '--input-type=module', '-e', script],
    {
      encoding: 'utf8',
    },
  );
  if (run.status !== 0) throw new Error(run.stderr);
  return Number(run.stdout.trim());
}

describe('boundHeap', () => {
  it('keeps the young generation at its size once set at run time', () => {
    expect(youngGenerationGrowth(false)).toBeGreaterThan(4);
    expect(youngGenerationGrowth(true)).toBeLessThanOrEqual(0);
  }, 60_000);

  it('leaves a young generation the process was started with alone', () => {
    expect(youngGenerationGrowth(true, ['--max-semi-space-size=8'])).toBeGreaterThan(4);
  }, 60_000);
});
