import { hashId } from './id-hash.js';

const EMPTY = 0;
const USED = 1;
const MIN_CAPACITY = 16;

/**
 * A set of strings kept as 64-bit hashes, each with a small number (a page number): open
 * addressing with linear probing in typed arrays, 13 bytes a slot, at most half full. A million
 * ids take 26 MB instead of the hundred-odd a `Map<string, …>` of them would. Deletion shifts the
 * following entries back (no tombstones), so a long delta of removals never degrades it.
 */
export class HashMap64 {
  private hi: Uint32Array;
  private lo: Uint32Array;
  private values: Uint32Array;
  private state: Uint8Array;
  private mask: number;
  size = 0;

  constructor(capacity = MIN_CAPACITY) {
    let cap = MIN_CAPACITY;
    while (cap < capacity * 2) cap *= 2;
    this.hi = new Uint32Array(cap);
    this.lo = new Uint32Array(cap);
    this.values = new Uint32Array(cap);
    this.state = new Uint8Array(cap);
    this.mask = cap - 1;
  }

  /** Bytes held by the table (for reports and tests). */
  get bytes(): number {
    return this.state.length * 13;
  }

  private find(hi: number, lo: number): number {
    let i = lo & this.mask;
    while (this.state[i] === USED) {
      if (this.hi[i] === hi && this.lo[i] === lo) return i;
      i = (i + 1) & this.mask;
    }
    return ~i;
  }

  has(key: string): boolean {
    const { hi, lo } = hashId(key);
    return this.find(hi, lo) >= 0;
  }

  hasHash(hi: number, lo: number): boolean {
    return this.find(hi, lo) >= 0;
  }

  /** The value stored with `key`, or undefined. */
  get(key: string): number | undefined {
    const { hi, lo } = hashId(key);
    const i = this.find(hi, lo);
    return i >= 0 ? this.values[i] : undefined;
  }

  /** Stores `key` with `value`; true when it was new. */
  set(key: string, value = 0): boolean {
    const { hi, lo } = hashId(key);
    return this.setHash(hi, lo, value);
  }

  setHash(hi: number, lo: number, value = 0): boolean {
    const i = this.find(hi, lo);
    if (i >= 0) {
      this.values[i] = value;
      return false;
    }
    if ((this.size + 1) * 2 > this.state.length) {
      this.grow();
      return this.setHash(hi, lo, value);
    }
    const slot = ~i;
    this.hi[slot] = hi;
    this.lo[slot] = lo;
    this.values[slot] = value;
    this.state[slot] = USED;
    this.size++;
    return true;
  }

  /** Removes `key`; true when it was there. */
  delete(key: string): boolean {
    const { hi, lo } = hashId(key);
    let i = this.find(hi, lo);
    if (i < 0) return false;
    this.state[i] = EMPTY;
    this.size--;
    // Backward-shift: move later entries of the probe run into the hole when their home allows.
    let j = i;
    for (;;) {
      j = (j + 1) & this.mask;
      if (this.state[j] !== USED) break;
      const home = this.lo[j]! & this.mask;
      const between = i <= j ? home > i && home <= j : home > i || home <= j;
      if (between) continue;
      this.hi[i] = this.hi[j]!;
      this.lo[i] = this.lo[j]!;
      this.values[i] = this.values[j]!;
      this.state[i] = USED;
      this.state[j] = EMPTY;
      i = j;
    }
    return true;
  }

  private grow(): void {
    const { hi, lo, values, state } = this;
    const cap = state.length * 2;
    this.hi = new Uint32Array(cap);
    this.lo = new Uint32Array(cap);
    this.values = new Uint32Array(cap);
    this.state = new Uint8Array(cap);
    this.mask = cap - 1;
    this.size = 0;
    for (let i = 0; i < state.length; i++) if (state[i] === USED) this.setHash(hi[i]!, lo[i]!, values[i]!);
  }
}
