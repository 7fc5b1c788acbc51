// The kit checks a sync in bounded memory: what it retains while a sync is held does not grow
// with the rows (beyond the ids' compact hashes, a few bytes per row). Benchmark-style but not
// timed: each size runs the kit in a child process of its own against a core app in this one.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startScaleApp } from '../bench/scale-app.js';

const CHILD = fileURLToPath(new URL('./fixtures/memory-child.ts', import.meta.url));

interface Measure {
  rows: number;
  heapUsed: number;
  arrayBuffers: number;
  failed: string[];
}

async function measure(rows: number): Promise<Measure> {
  const app = await startScaleApp({ rows });
  try {
    const child = spawn(process.execPath, ['--import', 'tsx', '--expose-gc', CHILD, app.url], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    const line = out.trim().split('\n').at(-1) ?? '';
    if (code !== 0 || !line.startsWith('{'))
      throw new Error(`memory child exited ${code}: ${err.slice(-800)}`);
    return JSON.parse(line) as Measure;
  } finally {
    await app.close();
  }
}

describe('the kit in bounded memory', () => {
  it('retains no more JS heap at 200k rows than at 50k (within 20 %), and a few bytes per row in hashes', async () => {
    const small = await measure(50_000);
    const large = await measure(200_000);
    expect(small.failed).toEqual([]);
    expect(large.failed).toEqual([]);
    // Rows counted: items plus a hundredth as groups.
    expect(large.rows).toBe(202_000);
    const mb = (n: number) => `${(n / 2 ** 20).toFixed(1)} MB`;
    const heaps = `heap ${mb(small.heapUsed)} at 50k, ${mb(large.heapUsed)} at 200k`;
    expect(large.heapUsed, heaps).toBeLessThan(small.heapUsed * 1.2);
    // The ids and references as 64-bit hashes: at most 100 bytes per added row (the table is
    // between a quarter and half full). Whole rows in a Map would take several hundred.
    const perRow = (large.arrayBuffers - small.arrayBuffers) / (large.rows - small.rows);
    expect(perRow, `typed arrays ${mb(small.arrayBuffers)} → ${mb(large.arrayBuffers)}`).toBeLessThan(100);
  }, 120_000);
});
