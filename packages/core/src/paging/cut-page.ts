import { MARKER, type Marker, type RemoveMarker, type ResumeMarker } from '../define/markers.js';
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

export interface Page {
  items: Record<string, unknown>[];
  /** Where the next page starts, or null when the handler is done. */
  next: PageState | null;
}

const CONTINUE: unique symbol = Symbol('continue');

/** Raised when a handler yields something that is not an item. */
export class BadItemError extends Error {}

/**
 * Pulls one page out of a data handler's stream. A yielded array is a batch of rows (items and
 * markers), taken as if yielded one by one. The handler was restarted from
 * `state.cursor`, so the first `state.skip` rows it yields were sent already and are dropped.
 * The page ends when `pageSize` rows are collected and the handler yields again: on a resume
 * point (the page then ends exactly there, and the next page may turn out empty) or on another
 * row (`hasNext` is then certain). The handler is closed after each page, which runs its
 * `finally` blocks.
 */
export async function cutPage(stream: AsyncIterable<unknown>, options: CutPageOptions): Promise<Page> {
  const { pageSize, mode, type } = options;
  const delta = mode === 'delta';
  const items: Record<string, unknown>[] = [];
  let cursor = options.state.cursor;
  let toSkip = options.state.skip;
  // Rows yielded since `cursor`, sent or skipped: the skip count of the next page.
  let sinceCursor = 0;
  const iterator = stream[Symbol.asyncIterator]();
  // Handles one yielded row: CONTINUE, or the state to end the page with. A full page ends at
  // the next row; if that row is a resume point the page ends on it, so the handler is not
  // pulled (into fetching another upstream page) only to have that work thrown away.
  const take = (value: unknown): PageState | typeof CONTINUE => {
    if (value === null || typeof value !== 'object') {
      throw new BadItemError(
        `type "${type}" yielded ${value === null ? 'null' : typeof value}, not an item object`,
      );
    }
    const row = value as Record<PropertyKey, unknown>;
    const marker = row[MARKER] as Marker[typeof MARKER] | undefined;
    if (marker === 'resume') {
      cursor = (row as unknown as ResumeMarker).state;
      sinceCursor = 0;
      return items.length === pageSize ? { cursor, skip: 0 } : CONTINUE;
    }
    if (marker === 'remove' && !delta) return CONTINUE;
    if (items.length === pageSize) return { cursor, skip: sinceCursor };
    sinceCursor += 1;
    if (toSkip > 0) {
      toSkip -= 1;
      return CONTINUE;
    }
    if (marker === 'remove') {
      items.push({ id: (row as unknown as RemoveMarker).id, [SYNC_ACTION_FIELD]: 'REMOVE' });
      return CONTINUE;
    }
    if (row.id === undefined || row.id === null) {
      throw new BadItemError(
        `type "${type}" yielded an item without \`id\` (item ${items.length + 1} of this page)`,
      );
    }
    items.push(
      delta && row[SYNC_ACTION_FIELD] === undefined
        ? { ...(row as Record<string, unknown>), [SYNC_ACTION_FIELD]: 'SET' }
        : (row as Record<string, unknown>),
    );
    return CONTINUE;
  };
  try {
    for (;;) {
      const step = await iterator.next();
      if (step.done) return { items, next: null };
      const value = step.value;
      // An array is a batch of rows: one await for a whole upstream page.
      if (Array.isArray(value)) {
        let i = 0;
        if (!delta && toSkip === 0) {
          // Fast path for the common case: plain items while the page has room.
          const end = Math.min(value.length, pageSize - items.length);
          for (; i < end; i += 1) {
            const row = value[i] as Record<PropertyKey, unknown> | null;
            if (row === null || typeof row !== 'object' || row[MARKER] !== undefined || row.id == null) break;
            items.push(row as Record<string, unknown>);
          }
          sinceCursor += i;
        }
        for (; i < value.length; i += 1) {
          const next = take(value[i]);
          if (next !== CONTINUE) return { items, next };
        }
      } else {
        const next = take(value);
        if (next !== CONTINUE) return { items, next };
      }
    }
  } finally {
    await iterator.return?.();
  }
}
