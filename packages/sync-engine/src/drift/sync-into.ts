import type { AppClient } from '../app-client.js';
import { type ReadTypeInput, readType } from '../read-type.js';
import { itemAction } from '../split-items.js';
import { DigestTable } from './digest-table.js';
import type { DriftCheck } from './drift-check.js';

type Json = Record<string, unknown>;

/** A row as it would be stored (the caller's value conversion); identity by default. */
export type ConvertRow = (row: Json) => Json;

export interface SyncIntoResult {
  /** the table after the sync: `table`, or a new one when a delta request got a full answer */
  table: DigestTable;
  pages: number;
  synchronizationType: 'full' | 'delta';
  set: number;
  removed: number;
}

/**
 * Reads one type's sync and applies it to `table` by the service's rules: a full answer replaces
 * the set (rows go into a new table), a delta answer's SET rows change the fields they carry,
 * REMOVE rows remove their id (in full answers too). Throws the app's AppCallError on failure.
 */
export async function syncInto(
  client: AppClient,
  input: ReadTypeInput,
  table: DigestTable,
  convert: ConvertRow = (row) => row,
): Promise<SyncIntoResult> {
  const result: SyncIntoResult = { table, pages: 0, synchronizationType: 'full', set: 0, removed: 0 };
  for await (const event of readType(client, input)) {
    if (event.kind !== 'page') continue;
    if (result.pages === 0) {
      result.synchronizationType = event.synchronizationType;
      if (event.synchronizationType === 'full' && table.size > 0)
        result.table = new DigestTable(table.fields);
    }
    result.pages++;
    const merge = event.synchronizationType === 'delta';
    for (const item of event.items) {
      const what = itemAction(item);
      if (what.action === 'remove') {
        if (result.table.delete(what.id)) result.removed++;
      } else if (what.action === 'set') {
        result.table.set(what.id, convert(what.row), merge);
        result.set++;
      }
    }
  }
  return result;
}

/**
 * Reads a fresh full sync of one type into `check` (nothing stored): each row is compared with the
 * state as it comes, so memory holds one page. A REMOVE row in the full answer is not part of it.
 */
export async function fullSyncInto(
  client: AppClient,
  input: Omit<ReadTypeInput, 'lastSynchronizedAt'>,
  check: DriftCheck,
  convert: ConvertRow = (row) => row,
): Promise<{ pages: number }> {
  let pages = 0;
  for await (const event of readType(client, { ...input, lastSynchronizedAt: null })) {
    if (event.kind !== 'page') continue;
    pages++;
    for (const item of event.items) {
      const what = itemAction(item);
      if (what.action === 'set') check.see(what.id, convert(what.row));
    }
  }
  return { pages };
}
