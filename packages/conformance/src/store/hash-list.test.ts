import { hashId } from '@weft/sync-engine';
import { describe, expect, it } from 'vitest';
import { HashList } from './hash-list.js';

describe('HashList', () => {
  it('lists hashes in order, counting repeats', () => {
    const list = new HashList();
    for (let n = 0; n < 1_000; n++) list.push(`ref-${n % 10}`);
    expect(list.length).toBe(1_000);
    const got: string[] = [];
    list.forEach((hi, lo) => {
      got.push(`${hi}:${lo}`);
    });
    const { hi, lo } = hashId('ref-3');
    expect(got[13]).toBe(`${hi}:${lo}`);
  });

  it('keeps hashes past a chunk in order', () => {
    const list = new HashList();
    for (let n = 0; n < 200_000; n++) list.push(`ref-${n}`);
    let n = 0;
    let mismatches = 0;
    list.forEach((hi, lo) => {
      const want = hashId(`ref-${n++}`);
      if (want.hi !== hi || want.lo !== lo) mismatches++;
    });
    expect([n, mismatches]).toEqual([200_000, 0]);
  });

  it('holds 8 bytes a hash, never twice what it needs, and never copies a large array', () => {
    const list = new HashList();
    let largestStep = 0;
    for (let n = 0; n < 1_100_000; n++) {
      const before = list.bytes;
      list.push(`ref-${n}`);
      largestStep = Math.max(largestStep, list.bytes - before);
    }
    expect(list.bytes).toBeLessThan(1_100_000 * 8 * 1.1);
    // A growth adds one chunk of 512 KB at most (a doubling array would add 8 MB here).
    expect(largestStep).toBeLessThanOrEqual(512 * 1024);
  });
});
