import { describe, expect, it } from 'vitest';
import { HashMap64 } from './hash-map.js';
import { hashId } from './id-hash.js';

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('HashMap64', () => {
  it('behaves as a Map<string, number> under random sets and deletes (growth, backward shifts)', () => {
    const next = random(42);
    const map = new HashMap64();
    const model = new Map<string, number>();
    for (let step = 0; step < 60_000; step++) {
      const key = `id-${Math.floor(next() * 5_000)}`;
      if (next() < 0.4) expect(map.delete(key)).toBe(model.delete(key));
      else {
        expect(map.set(key, step)).toBe(!model.has(key));
        model.set(key, step);
      }
    }
    expect(map.size).toBe(model.size);
    // The hash 0:0 marks empty slots; a key hashing to it must still be stored.
    expect(map.setHash(0, 0, 7)).toBe(true);
    expect(map.hasHash(0, 0)).toBe(true);
    expect(map.setHash(0, 0, 8)).toBe(false);
    for (let k = 0; k < 5_000; k++) expect(map.get(`id-${k}`)).toBe(model.get(`id-${k}`));
  });

  it('keeps a million ids in typed arrays of 12 bytes a slot, at most three quarters full', () => {
    const map = new HashMap64();
    for (let n = 0; n < 1_000_000; n++) map.set(`item-${n}`, n % 1000);
    expect(map.size).toBe(1_000_000);
    expect(map.bytes).toBe(2 ** 21 * 12);
    expect(map.has('item-999999')).toBe(true);
    expect(map.has('item-1000000')).toBe(false);
  });

  it('grows a sixteenth at a time: no growth copies more than an eighth of the map', () => {
    const map = new HashMap64();
    let largestStep = 0;
    for (let n = 0; n < 1_000_000; n++) {
      const before = map.bytes;
      map.set(`item-${n}`, n % 1000);
      if (before >= 2 ** 20) largestStep = Math.max(largestStep, (map.bytes - before) / before);
    }
    // One table doubles: its growth would add as much again as the whole map held.
    expect(largestStep).toBeGreaterThan(0);
    expect(largestStep).toBeLessThan(1 / 8);
  });
});

describe('hashId', () => {
  it('gives 64-bit hashes without collisions over 200,000 similar ids', () => {
    const seen = new Set<string>();
    for (let n = 0; n < 200_000; n++) {
      const { hi, lo } = hashId(`row-${n}`);
      seen.add(`${hi}:${lo}`);
    }
    expect(seen.size).toBe(200_000);
    expect(hashId('1')).toEqual(hashId(String(1)));
    expect(hashId('ab')).not.toEqual(hashId('ba'));
  });
});
