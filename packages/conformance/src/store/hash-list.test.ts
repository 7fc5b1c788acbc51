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
});
