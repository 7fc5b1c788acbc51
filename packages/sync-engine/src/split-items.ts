import { SYNC_ACTION_FIELD } from '@weft/core/protocol';

type Json = Record<string, unknown>;

/** What the service does with one row of a data page. */
export type ItemAction =
  | { action: 'set'; id: string; row: Json }
  | { action: 'remove'; id: string }
  /** no string or number `id`: the row cannot be stored */
  | { action: 'skip' };

/**
 * What the service does with one row: set it (without `__syncAction`), remove its id
 * (`__syncAction: "REMOVE"`), or skip it (no usable id). A REMOVE row removes in a `full` answer
 * too: a full answer replaces the data set, and a row the app marks as removed is not part of it
 * (the same outcome as not sending it, applied at once).
 */
export function itemAction(item: Json): ItemAction {
  const id = item.id;
  if (typeof id !== 'string' && typeof id !== 'number') return { action: 'skip' };
  if (item[SYNC_ACTION_FIELD] === 'REMOVE') return { action: 'remove', id: String(id) };
  if (Object.hasOwn(item, SYNC_ACTION_FIELD)) {
    const { [SYNC_ACTION_FIELD]: _, ...rest } = item;
    return { action: 'set', id: String(id), row: rest };
  }
  return { action: 'set', id: String(id), row: item };
}

/**
 * Splits a page's items into rows to set and ids to remove (`__syncAction: "REMOVE"`), in full
 * and delta answers alike (see `itemAction`). Items without an id cannot be stored and are
 * counted in `skipped`; `__syncAction` is dropped from the rows set.
 */
export function splitItems(items: Json[]): { set: Json[]; remove: string[]; skipped: number } {
  const set: Json[] = [];
  const remove: string[] = [];
  let skipped = 0;
  for (const item of items) {
    const what = itemAction(item);
    if (what.action === 'skip') skipped++;
    else if (what.action === 'remove') remove.push(what.id);
    else set.push(what.row);
  }
  return { set, remove, skipped };
}
