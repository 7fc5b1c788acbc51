import { hashId } from './id-hash.js';

/** Hashes per chunk: 64 K of them, 512 KB. */
const CHUNK_BITS = 16;
const CHUNK = 1 << CHUNK_BITS;
/** Hashes the first chunk starts with. */
const FIRST = 256;

/**
 * A growing list of 64-bit string hashes (8 bytes each), in insertion order: the relation
 * references of a sync, counted with repeats, checked against the target's ids at the end. Kept in
 * chunks that are never copied: a growing array would hold its old and new copies at once, and
 * up to twice what it needs after.
 */
export class HashList {
  private readonly chunks: Uint32Array[] = [];
  length = 0;

  push(text: string): void {
    const at = this.length & (CHUNK - 1);
    if (at === 0) this.chunks.push(new Uint32Array((this.chunks.length === 0 ? FIRST : CHUNK) * 2));
    let chunk = this.chunks[this.chunks.length - 1]!;
    if (at * 2 >= chunk.length) {
      // Only the first chunk grows: a relation with a few references costs a few bytes.
      const bigger = new Uint32Array(chunk.length * 2);
      bigger.set(chunk);
      chunk = bigger;
      this.chunks[this.chunks.length - 1] = chunk;
    }
    const { hi, lo } = hashId(text);
    chunk[at * 2] = hi;
    chunk[at * 2 + 1] = lo;
    this.length++;
  }

  /** Bytes held by the chunks (for tests). */
  get bytes(): number {
    let bytes = 0;
    for (const chunk of this.chunks) bytes += chunk.byteLength;
    return bytes;
  }

  /** Calls `fn` with each hash, in order. */
  forEach(fn: (hi: number, lo: number) => void): void {
    for (let i = 0; i < this.length; i++) {
      const chunk = this.chunks[i >>> CHUNK_BITS]!;
      const at = i & (CHUNK - 1);
      fn(chunk[at * 2]!, chunk[at * 2 + 1]!);
    }
  }
}
