import {
  type DataMarker,
  type JsonItemsMarker,
  MARKER,
  type RemoveMarker,
  type ResumeMarker,
} from '../define/markers.js';
import { SYNC_ACTION_FIELD } from '../protocol/index.js';
import type { PageState } from './page-state.js';

export interface CutPageOptions {
  pageSize: number;
  /** Where the previous page stopped. */
  state: PageState;
  /** Delta rows carry `__syncAction`; in a full sync removals are dropped. */
  mode: 'full' | 'delta';
  /** Names the type in error messages. */
  type: string;
}

/** Items in wire form from a `jsonItems()` marker, to go on the page before `items[at]`. */
export interface RawSegment {
  at: number;
  /** The JSON array as the handler gave it. */
  text: string;
  count: number;
}

export interface Page {
  items: Record<string, unknown>[];
  /** `jsonItems()` arrays kept whole, in order; the page's rows are `items` with these spliced in. */
  raw: RawSegment[];
  /** Where the next page starts, or null when the handler is done. */
  next: PageState | null;
  /** Rows the handler yielded again that earlier pages had sent, dropped to serve this one. */
  replayed: number;
}

/** Raised when a handler yields something that is not an item. */
export class BadItemError extends Error {}

type Row = Record<PropertyKey, unknown>;

/**
 * Pulls one page out of a data handler's stream. A yielded array is a batch of rows (items and
 * markers), taken as if yielded one by one. The handler was restarted from
 * `state.cursor`, so the first `state.skip` rows it yields were sent already and are dropped.
 * The page ends when `pageSize` rows are collected and the handler yields again: on a resume
 * point (the page then ends exactly there, and the next page may turn out empty) or on another
 * row (`hasNext` is then certain). The handler is closed after each page, which runs its
 * `finally` blocks. A `jsonItems()` marker goes on the page whole when it can (a full sync,
 * nothing to skip, room for all its rows); otherwise its text is parsed and taken as a batch.
 */
export async function cutPage(stream: AsyncIterable<unknown>, options: CutPageOptions): Promise<Page> {
  const cutter = new Cutter(options);
  const iterator = stream[Symbol.asyncIterator]();
  try {
    return cutter.page(await drain(iterator, cutter));
  } finally {
    await iterator.return?.();
  }
}

/**
 * Pulls rows until the page ends: the state to end it with, or null when the stream is done.
 *
 * Written for the common case, one plain item per yield, which a page of one-item yields runs
 * a thousand times per request. Each row costs the async-generator protocol one promise
 * round trip that no consumer can avoid (the handler's `yield` awaits its value, then settles
 * the promise `next()` returned). What the consumer adds on top is kept to one reaction: the
 * step is taken in a `then` callback that asks for the next one, rather than by resuming an
 * async function at an `await`, and a plain item with room on the page is pushed with a
 * handful of checks and no call. Exactly one `next()` is outstanding at a time, so the
 * handler is pulled no further than a loop of `await iterator.next()` would pull it.
 */
function drain(iterator: AsyncIterator<unknown>, cutter: Cutter): Promise<PageState | null> {
  return new Promise((resolve, reject) => {
    const items = cutter.items;
    // The room for plain items: the page size less the rows of `jsonItems()` kept whole.
    let limit = cutter.limit;
    const pull = (): void => {
      let pending: unknown;
      try {
        pending = iterator.next();
      } catch (error) {
        reject(error);
        return;
      }
      // A hand-written iterator may answer with a plain result; a generator's promise is used as is.
      (pending instanceof Promise ? pending : Promise.resolve(pending)).then(onStep, reject);
    };
    const onStep = (step: IteratorResult<unknown>): void => {
      try {
        if (step.done) {
          resolve(null);
          return;
        }
        const value = step.value as Row;
        // The fast path: a plain item, nothing left to skip, a full sync, room on the page.
        if (
          cutter.plain &&
          items.length < limit &&
          typeof value === 'object' &&
          value !== null &&
          value[MARKER] === undefined &&
          value.id != null &&
          !Array.isArray(value)
        ) {
          items.push(value as Record<string, unknown>);
        } else {
          const next = Array.isArray(value) ? cutter.takeBatch(value) : cutter.take(value);
          limit = cutter.limit;
          if (next !== undefined) {
            resolve(next);
            return;
          }
        }
      } catch (error) {
        reject(error);
        return;
      }
      pull();
    };
    pull();
  });
}

/** The page being cut: what was collected, and where the stream stands against `state`. */
class Cutter {
  readonly items: Record<string, unknown>[] = [];
  readonly raw: RawSegment[] = [];
  /** True while rows can go straight onto the page: a full sync with nothing left to skip. */
  plain: boolean;
  readonly pageSize: number;
  /** Plain items that fit on the page: `pageSize` less the rows of `raw`. */
  limit: number;
  private readonly delta: boolean;
  private readonly type: string;
  private cursor: PageState['cursor'];
  private toSkip: number;
  private skipped = 0;
  /**
   * `skipped + items.length` when the last resume point passed: every row since then was
   * either skipped or put on the page, so the next page's skip count is the difference.
   */
  private rowsAtCursor: number;

  constructor(options: CutPageOptions) {
    this.pageSize = options.pageSize;
    this.limit = options.pageSize;
    this.delta = options.mode === 'delta';
    this.type = options.type;
    this.cursor = options.state.cursor;
    this.toSkip = options.state.skip;
    // Rows skipped or sent on this page were all yielded after `state.cursor`.
    this.rowsAtCursor = 0;
    this.plain = !this.delta && this.toSkip === 0;
  }

  page(next: PageState | null): Page {
    return { items: this.items, raw: this.raw, next, replayed: this.skipped };
  }

  /**
   * Handles one yielded row: undefined to go on, or the state to end the page with. A full
   * page ends at the next row; if that row is a resume point the page ends on it, so the
   * handler is not pulled (into fetching another upstream page) only to have that work thrown
   * away.
   */
  take(value: unknown): PageState | undefined {
    if (value === null || typeof value !== 'object') {
      throw new BadItemError(
        `type "${this.type}" yielded ${value === null ? 'null' : typeof value}, not an item object`,
      );
    }
    const row = value as Row;
    const marker = row[MARKER] as DataMarker[typeof MARKER] | undefined;
    const items = this.items;
    if (marker === 'resume') {
      this.cursor = (row as unknown as ResumeMarker).state;
      this.rowsAtCursor = this.skipped + this.rows();
      return items.length === this.limit ? { cursor: this.cursor, skip: 0 } : undefined;
    }
    if (marker === 'json') return this.takeJson(row as unknown as JsonItemsMarker);
    if (marker === 'remove' && !this.delta) return undefined;
    if (items.length === this.limit) return this.fullAt();
    if (this.toSkip > 0) {
      this.toSkip -= 1;
      this.skipped += 1;
      this.plain = !this.delta && this.toSkip === 0;
      return undefined;
    }
    if (marker === 'remove') {
      items.push({ id: (row as unknown as RemoveMarker).id, [SYNC_ACTION_FIELD]: 'REMOVE' });
      return undefined;
    }
    if (row.id === undefined || row.id === null) {
      throw new BadItemError(
        `type "${this.type}" yielded an item without \`id\` (item ${items.length + 1} of this page)`,
      );
    }
    items.push(
      this.delta && row[SYNC_ACTION_FIELD] === undefined
        ? { ...(row as Record<string, unknown>), [SYNC_ACTION_FIELD]: 'SET' }
        : (row as Record<string, unknown>),
    );
    return undefined;
  }

  /** Rows on the page so far. */
  private rows(): number {
    return this.items.length + (this.pageSize - this.limit);
  }

  /** The state that ends a full page just before the next row. */
  private fullAt(): PageState {
    return { cursor: this.cursor, skip: this.skipped + this.rows() - this.rowsAtCursor };
  }

  /**
   * A `jsonItems()` array: onto the page whole when nothing forbids it, else parsed and taken row
   * by row (always correct, only slower). Only its shape is checked, not its items.
   */
  private takeJson(marker: JsonItemsMarker): PageState | undefined {
    const { text, count } = marker;
    if (typeof text !== 'string' || !looksLikeArray(text)) {
      throw new BadItemError(`type "${this.type}" yielded jsonItems() whose text is not a JSON array`);
    }
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) {
      throw new BadItemError(
        `type "${this.type}" yielded jsonItems() whose count is not a non-negative integer`,
      );
    }
    if (count === 0) return undefined;
    if (this.plain && count <= this.limit - this.items.length) {
      this.raw.push({ at: this.items.length, text, count });
      this.limit -= count;
      return undefined;
    }
    // A full page ends before the first of these rows: no need to parse them to know.
    if (this.items.length === this.limit) return this.fullAt();
    let rows: unknown;
    try {
      rows = JSON.parse(text);
    } catch {
      rows = undefined;
    }
    if (!Array.isArray(rows) || rows.length !== count) {
      throw new BadItemError(
        `type "${this.type}" yielded jsonItems() whose text is not a JSON array of ${count} items`,
      );
    }
    return this.takeBatch(rows);
  }

  /** An array is a batch of rows: one await for a whole upstream page. */
  takeBatch(batch: readonly unknown[]): PageState | undefined {
    const items = this.items;
    let i = 0;
    if (this.plain) {
      // Plain items while the page has room go straight on.
      const end = Math.min(batch.length, this.limit - items.length);
      for (; i < end; i += 1) {
        const row = batch[i] as Row | null;
        if (row === null || typeof row !== 'object' || row[MARKER] !== undefined || row.id == null) break;
        items.push(row as Record<string, unknown>);
      }
    }
    for (; i < batch.length; i += 1) {
      const next = this.take(batch[i]);
      if (next !== undefined) return next;
    }
    return undefined;
  }
}

/** Whether the first and last non-space characters are `[` and `]` (a cheap check, not a parse). */
function looksLikeArray(text: string): boolean {
  let start = 0;
  let end = text.length - 1;
  while (start <= end && isSpace(text.charCodeAt(start))) start += 1;
  while (end > start && isSpace(text.charCodeAt(end))) end -= 1;
  return end > start && text.charCodeAt(start) === 91 && text.charCodeAt(end) === 93;
}

/** JSON's white space: space, tab, line feed, carriage return. */
function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}
