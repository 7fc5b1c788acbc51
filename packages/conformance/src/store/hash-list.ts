import { hashId } from './id-hash.js';

/**
 * A growing list of 64-bit string hashes (8 bytes each), in insertion order: the relation
 * references of a sync, counted with repeats, checked against the target's ids at the end.
 */
export class HashList {
  private data = new Uint32Array(256);
  length = 0;

  push(text: string): void {
    if (this.length * 2 + 2 > this.data.length) {
      const bigger = new Uint32Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    const { hi, lo } = hashId(text);
    this.data[this.length * 2] = hi;
    this.data[this.length * 2 + 1] = lo;
    this.length++;
  }

  /** Calls `fn` with each hash, in order. */
  forEach(fn: (hi: number, lo: number) => void): void {
    for (let i = 0; i < this.length; i++) fn(this.data[i * 2]!, this.data[i * 2 + 1]!);
  }
}
