/**
 * Markers a data handler yields between items. They are told apart from items by a symbol key,
 * which no JSON item can carry.
 */
export const MARKER: unique symbol = Symbol.for('weft.marker');

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** "Restart me here": everything yielded after it follows from this state alone. */
export interface ResumeMarker {
  readonly [MARKER]: 'resume';
  readonly state: JsonValue;
}

/** A delta removal of the item with this id. */
export interface RemoveMarker {
  readonly [MARKER]: 'remove';
  readonly id: string | number;
}

export type Marker = ResumeMarker | RemoveMarker;

/**
 * Yield after the items of an upstream page to mark where a later request can resume (a
 * cursor, page token or checkpoint; any JSON value). Core puts it into `nextPageConfig`, and
 * hands it back as `ctx.cursor` on the next page. Without it core still pages correctly,
 * by replaying from the start and skipping what was sent.
 */
export function resume(state: JsonValue): ResumeMarker {
  return { [MARKER]: 'resume', state };
}

/** Yield in a delta sync to remove an item: sent as `{id, __syncAction: 'REMOVE'}`. */
export function remove(id: string | number): RemoveMarker {
  return { [MARKER]: 'remove', id };
}
