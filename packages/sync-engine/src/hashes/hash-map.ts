import { hashId } from './id-hash.js';

const MIN_CAPACITY = 16;
/** Fill at most three quarters of the slots: linear probing stays short, memory stays small. */
const MAX_LOAD = 0.75;

/** Shards of a map: 2⁴, chosen by the top bits of a hash's high half. */
const SHARD_BITS = 4;

/**
 * A set of strings kept as 64-bit hashes, each with a small number (a page number): open
 * addressing with linear probing in typed arrays, 12 bytes a slot, at most three quarters full.
 * A million ids take 25 MB instead of the hundred-odd a `Map<string, …>` of them would, ten
 * million 200 MB. The slots are split into 16 tables by the hash's top bits, each growing on its
 * own: a growth copies a sixteenth of the map, where one table would hold its old and new arrays
 * (half as much again as the whole map) at the moment the map is largest.
 */
export class HashMap64 {
  private readonly shards: HashShard[] = Array.from({ length: 1 << SHARD_BITS }, () => new HashShard());
  size = 0;

  /** Bytes held by the tables (for reports and tests). */
  get bytes(): number {
    let bytes = 0;
    for (const shard of this.shards) bytes += shard.bytes;
    return bytes;
  }

  private shard(hi: number): HashShard {
    return this.shards[hi >>> (32 - SHARD_BITS)]!;
  }

  has(key: string): boolean {
    const { hi, lo } = hashId(key);
    return this.hasHash(hi, lo);
  }

  hasHash(hi: number, lo: number): boolean {
    return this.shard(hi).hasHash(hi, lo);
  }

  /** The value stored with `key`, or undefined. */
  get(key: string): number | undefined {
    const { hi, lo } = hashId(key);
    return this.shard(hi).get(hi, lo);
  }

  /** Stores `key` with `value`; true when it was new. */
  set(key: string, value = 0): boolean {
    const { hi, lo } = hashId(key);
    return this.setHash(hi, lo, value);
  }

  setHash(hi: number, lo: number, value = 0): boolean {
    const added = this.shard(hi).setHash(hi, lo, value);
    if (added) this.size++;
    return added;
  }

  /** Removes `key`; true when it was there. */
  delete(key: string): boolean {
    const { hi, lo } = hashId(key);
    const removed = this.shard(hi).delete(hi, lo);
    if (removed) this.size--;
    return removed;
  }
}

/**
 * One table of a HashMap64. The hash 0:0 marks an empty slot (a real 0:0 is stored as 0:1, one
 * more collision chance in 2⁶⁴). Deletion shifts the following entries back (no tombstones), so a
 * long delta of removals never degrades it.
 */
class HashShard {
  private hi: Uint32Array;
  private lo: Uint32Array;
  private values: Uint32Array;
  private mask: number;
  size = 0;

  constructor() {
    this.hi = new Uint32Array(MIN_CAPACITY);
    this.lo = new Uint32Array(MIN_CAPACITY);
    this.values = new Uint32Array(MIN_CAPACITY);
    this.mask = MIN_CAPACITY - 1;
  }

  /** Bytes held by the table (for reports and tests). */
  get bytes(): number {
    return this.hi.length * 12;
  }

  private find(hi: number, lo: number): number {
    let i = lo & this.mask;
    while (this.hi[i] !== 0 || this.lo[i] !== 0) {
      if (this.hi[i] === hi && this.lo[i] === lo) return i;
      i = (i + 1) & this.mask;
    }
    return ~i;
  }

  hasHash(hi: number, lo: number): boolean {
    return this.find(hi, lo === 0 && hi === 0 ? 1 : lo) >= 0;
  }

  get(hi: number, lo: number): number | undefined {
    const i = this.find(hi, lo === 0 && hi === 0 ? 1 : lo);
    return i >= 0 ? this.values[i] : undefined;
  }

  setHash(hi: number, rawLo: number, value = 0): boolean {
    const lo = rawLo === 0 && hi === 0 ? 1 : rawLo;
    const i = this.find(hi, lo);
    if (i >= 0) {
      this.values[i] = value;
      return false;
    }
    if (this.size + 1 > this.hi.length * MAX_LOAD) {
      this.grow();
      return this.setHash(hi, lo, value);
    }
    const slot = ~i;
    this.hi[slot] = hi;
    this.lo[slot] = lo;
    this.values[slot] = value;
    this.size++;
    return true;
  }

  delete(hi: number, lo: number): boolean {
    let i = this.find(hi, lo === 0 && hi === 0 ? 1 : lo);
    if (i < 0) return false;
    this.hi[i] = 0;
    this.lo[i] = 0;
    this.size--;
    // Backward-shift: move later entries of the probe run into the hole when their home allows.
    let j = i;
    for (;;) {
      j = (j + 1) & this.mask;
      if (this.hi[j] === 0 && this.lo[j] === 0) break;
      const home = this.lo[j]! & this.mask;
      const between = i <= j ? home > i && home <= j : home > i || home <= j;
      if (between) continue;
      this.hi[i] = this.hi[j]!;
      this.lo[i] = this.lo[j]!;
      this.values[i] = this.values[j]!;
      this.hi[j] = 0;
      this.lo[j] = 0;
      i = j;
    }
    return true;
  }

  private grow(): void {
    const { hi, lo, values } = this;
    const cap = hi.length * 2;
    this.hi = new Uint32Array(cap);
    this.lo = new Uint32Array(cap);
    this.values = new Uint32Array(cap);
    this.mask = cap - 1;
    this.size = 0;
    for (let i = 0; i < hi.length; i++)
      if (hi[i] !== 0 || lo[i] !== 0) this.setHash(hi[i]!, lo[i]!, values[i]!);
  }
}
