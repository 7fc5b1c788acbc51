import { SYNC_ACTION_FIELD } from '@weft/core/protocol';

type Json = Record<string, unknown>;

/**
 * Splits a page's items into rows to set and ids to remove (`__syncAction: "REMOVE"`). Items
 * without an id cannot be stored and are counted in `skipped`; `__syncAction` is dropped from
 * the rows set.
 */
export function splitItems(items: Json[]): { set: Json[]; remove: string[]; skipped: number } {
  const set: Json[] = [];
  const remove: string[] = [];
  let skipped = 0;
  for (const item of items) {
    const id = item.id;
    if (typeof id !== 'string' && typeof id !== 'number') {
      skipped++;
      continue;
    }
    if (item[SYNC_ACTION_FIELD] === 'REMOVE') {
      remove.push(String(id));
      continue;
    }
    if (Object.hasOwn(item, SYNC_ACTION_FIELD)) {
      const { [SYNC_ACTION_FIELD]: _, ...rest } = item;
      set.push(rest);
    } else set.push(item);
  }
  return { set, remove, skipped };
}
