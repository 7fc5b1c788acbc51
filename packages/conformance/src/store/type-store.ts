import { HashMap64 } from './hash-map.js';

type Row = Record<string, unknown>;

/** Rows kept whole per type: a few, to show in the report; everything else is hashes. */
export const SAMPLE_ROWS = 3;
/** Kept in reserve, so that removing a sample row in the delta sync leaves three to show. */
const SAMPLE_KEEP = 8;

/**
 * What the kit keeps of a synced type, as the service would store it, in bounded memory: the
 * ids (64-bit hashes, with the page each first came on), the values of the fields other types'
 * relations point at (when that is not `id`), and a few sample rows. Rows themselves are checked
 * page by page and dropped.
 */
export class TypeStore {
  ids = new HashMap64();
  /** Field id -> hashes of its values, for relations whose target field is not the id. */
  readonly values = new Map<string, HashMap64>();
  samples = new Map<string, Row>();

  constructor(readonly indexedFields: readonly string[] = []) {
    for (const f of indexedFields) this.values.set(f, new HashMap64());
  }

  get size(): number {
    return this.ids.size;
  }

  /** Upserts a row (`merge`: a delta SET, whose fields merge into the stored row). */
  set(key: string, row: Row, page: number, merge: boolean): void {
    this.ids.set(key, page);
    for (const [fieldId, set] of this.values) {
      const v = row[fieldId];
      if (v !== null && v !== undefined) set.set(String(v));
    }
    const old = this.samples.get(key);
    if (old) this.samples.set(key, merge ? { ...old, ...row } : row);
    else if (this.samples.size < SAMPLE_KEEP) this.samples.set(key, row);
  }

  /** The page `key` first came on in this store, or undefined. */
  pageOf(key: string): number | undefined {
    return this.ids.get(key);
  }

  delete(key: string): boolean {
    this.samples.delete(key);
    return this.ids.delete(key);
  }

  /** The rows to show: the first sample rows still in the set. */
  sample(): Row[] {
    return [...this.samples.values()].slice(0, SAMPLE_ROWS);
  }

  /** Replaces this store's contents with `other`'s (a `full` answer to a delta request). */
  replaceWith(other: TypeStore): void {
    this.ids = other.ids;
    this.samples = other.samples;
    this.values.clear();
    for (const [k, v] of other.values) this.values.set(k, v);
  }

  /** Hashes of the values of `fieldId` (`id` included). */
  index(fieldId: string): HashMap64 | undefined {
    return fieldId === 'id' ? this.ids : this.values.get(fieldId);
  }
}
