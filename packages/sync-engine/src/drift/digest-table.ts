import { HashMap64 } from '../hashes/hash-map.js';
import { hashId } from '../hashes/id-hash.js';
import { stableStringify } from '../hashes/stable-stringify.js';

type Json = Record<string, unknown>;

/** The digest of one value: 32 bits of a 64-bit hash of its canonical JSON (absent and null alike). */
export function valueDigest(value: unknown): number {
  return hashId(value === undefined ? 'null' : stableStringify(value)).lo;
}

const NULL_DIGEST = valueDigest(null);

/**
 * The rows of one type as digests, in bounded memory: per id (a 64-bit hash) one 32-bit digest per
 * field, and the id's text so that a drift can name it; never the rows. A changed value goes
 * unseen once in 2³² changes. Rows are applied by the service's rules: a row set for a new id
 * holds null in the fields it does not carry; a row set for a known id with `merge` changes only
 * the fields it carries (the host leaves a field a row does not carry as it is).
 */
export class DigestTable {
  private readonly column = new Map<string, number>();
  private readonly slots = new HashMap64();
  private digests: Uint32Array;
  private ids: (string | undefined)[] = [];
  private marks: Uint8Array;
  private free: number[] = [];
  private used = 0;

  constructor(readonly fields: readonly string[]) {
    for (const [i, f] of fields.entries()) this.column.set(f, i);
    this.digests = new Uint32Array(Math.max(1, fields.length) * 64);
    this.marks = new Uint8Array(64);
  }

  get size(): number {
    return this.slots.size;
  }

  /** Bytes held by the digests, marks and slot map (the id texts not counted). */
  get bytes(): number {
    return this.digests.byteLength + this.marks.byteLength + this.slots.bytes;
  }

  has(id: string): boolean {
    return this.slots.has(id);
  }

  private slotOf(id: string): number | undefined {
    return this.slots.get(id);
  }

  private newSlot(id: string, shown: string): number {
    const slot = this.free.pop() ?? this.used++;
    const stride = Math.max(1, this.fields.length);
    if ((slot + 1) * stride > this.digests.length) {
      const bigger = new Uint32Array(this.digests.length * 2);
      bigger.set(this.digests);
      this.digests = bigger;
      const marks = new Uint8Array(this.marks.length * 2);
      marks.set(this.marks);
      this.marks = marks;
    }
    this.digests.fill(NULL_DIGEST, slot * stride, (slot + 1) * stride);
    this.marks[slot] = 0;
    this.ids[slot] = shown;
    this.slots.set(id, slot);
    return slot;
  }

  /**
   * Sets a row (values already converted as they would be stored); `merge` keeps the fields it
   * lacks. `shown`: how a drift names the row (default its id).
   */
  set(id: string, row: Json, merge: boolean, shown = id): void {
    const stride = Math.max(1, this.fields.length);
    let slot = this.slotOf(id);
    if (slot === undefined) slot = this.newSlot(id, shown);
    else if (!merge) this.digests.fill(NULL_DIGEST, slot * stride, (slot + 1) * stride);
    for (const [field, value] of Object.entries(row)) {
      const col = this.column.get(field);
      if (col !== undefined) this.digests[slot * stride + col] = valueDigest(value);
    }
  }

  delete(id: string): boolean {
    const slot = this.slotOf(id);
    if (slot === undefined) return false;
    this.slots.delete(id);
    this.ids[slot] = undefined;
    this.free.push(slot);
    return true;
  }

  /**
   * Compares a row (converted) with the one stored under its id, and marks the id as seen:
   * undefined when no row has the id, else the fields whose values differ (empty when equal).
   */
  compare(id: string, row: Json): string[] | undefined {
    const slot = this.slotOf(id);
    if (slot === undefined) return undefined;
    this.marks[slot] = 1;
    const stride = Math.max(1, this.fields.length);
    const differ: string[] = [];
    this.fields.forEach((field, col) => {
      if (this.digests[slot * stride + col] !== valueDigest(row[field])) differ.push(field);
    });
    return differ;
  }

  /** Calls `fn` with each row not seen by `compare` since the last `clearMarks` (as `set` named it). */
  forEachUnseen(fn: (id: string) => void): void {
    for (let slot = 0; slot < this.used; slot++) {
      const id = this.ids[slot];
      if (id !== undefined && this.marks[slot] === 0) fn(id);
    }
  }

  clearMarks(): void {
    this.marks.fill(0);
  }
}
