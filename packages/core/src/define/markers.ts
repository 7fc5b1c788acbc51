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

/** Items already in wire form: a JSON array of `count` items, spliced into the page as it is. */
export interface JsonItemsMarker {
  readonly [MARKER]: 'json';
  readonly text: string;
  readonly count: number;
}

export type Marker = ResumeMarker | RemoveMarker;

/** What a data handler may yield besides items (a webhook transform takes `Marker`s only). */
export type DataMarker = Marker | JsonItemsMarker;

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

/**
 * Yield items that are already the JSON the service must receive: `text` is a JSON array of
 * `count` items (e.g. built by a database with `json_agg`). In a full sync, when the whole array
 * fits on the page and no row is being skipped, core splices the text into the answer untouched:
 * it does not parse it, apply the type's value conversions, or check ids. The app vouches that
 * every item is in wire form and has an `id`. In every other case (a delta sync, rows still to
 * skip after a restart, not enough room left on the page) core parses the text and takes its
 * items one by one, like a yielded array.
 */
export function jsonItems(text: string, count: number): JsonItemsMarker {
  return { [MARKER]: 'json', text, count };
}
