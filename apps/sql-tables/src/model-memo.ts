// The tables' models, read from the catalog at every request but rebuilt only when it changed.
// Each request asks the database for the catalog's fingerprint (one small query, see
// catalog-fingerprint.ts); the models built from a catalog with that fingerprint are reused,
// otherwise the full catalog is read (with its fingerprint, in one statement) and the models are
// built again. A changed table is therefore seen by the very next request, as before.
// This is not sync state: the memo is a pure function of the database's catalog (any replica,
// fresh or not, derives the same models from the same fingerprint), it holds nothing about a sync
// or a user, and losing it only costs the next request one catalog read.
import { FINGERPRINT } from './catalog-fingerprint.js';
import type { Queryable } from './database.js';
import { readCatalog } from './introspect.js';
import { type TableModel, tableModels } from './table-model.js';

/** Catalog versions kept per database (one per set of schemas read, mostly). */
const MAX_ENTRIES = 8;

export class ModelMemo {
  /** Per database object (a pool or the embedded database): dropped with it. */
  private readonly byDatabase = new WeakMap<Queryable, Map<string, readonly TableModel[]>>();

  /** The models of the tables of `schemas`, as the catalog describes them now. */
  async models(db: Queryable, schemas: readonly string[]): Promise<readonly TableModel[]> {
    let memo = this.byDatabase.get(db);
    if (memo) {
      const result = await db.query<{ fingerprint: string }>(FINGERPRINT, [schemas]);
      const key = memoKey(schemas, result.rows[0]?.fingerprint ?? '');
      const hit = memo.get(key);
      if (hit) {
        // Most recently used last, so the oldest goes first.
        memo.delete(key);
        memo.set(key, hit);
        return hit;
      }
    }
    const catalog = await readCatalog(db, schemas);
    const models = tableModels(catalog.tables, schemas);
    memo = this.byDatabase.get(db) ?? new Map();
    this.byDatabase.set(db, memo);
    memo.set(memoKey(schemas, catalog.fingerprint), models);
    while (memo.size > MAX_ENTRIES) memo.delete(memo.keys().next().value!);
    return models;
  }
}

function memoKey(schemas: readonly string[], fingerprint: string): string {
  return `${schemas.join('\u0000')}\u0001${fingerprint}`;
}
