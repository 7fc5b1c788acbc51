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

/** Raised when a handler yields something that is not an item. */
export class BadItemError extends Error {}

/**
 * Pulls one page out of a data handler's stream. A yielded array is a batch of rows (items and
 * markers), taken as if yielded one by one. The handler was restarted from
 * `state.cursor`, so the first `state.skip` rows it yields were sent already and are dropped.
 * The page ends when `pageSize` rows are collected and another row is waiting (so `hasNext`
 * is never a guess); the handler is then closed, which runs its `finally` blocks.
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
  // Handles one yielded row; returns false when the page is full and this row starts the next.
  const take = (value: unknown): boolean => {
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
      return true;
    }
    if (marker === 'remove' && !delta) return true;
    if (items.length === pageSize) return false;
    sinceCursor += 1;
    if (toSkip > 0) {
      toSkip -= 1;
      return true;
    }
    if (marker === 'remove') {
      items.push({ id: (row as unknown as RemoveMarker).id, [SYNC_ACTION_FIELD]: 'REMOVE' });
      return true;
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
    return true;
  };
  try {
    for (;;) {
      const step = await iterator.next();
      if (step.done) return { items, next: null };
      const value = step.value;
      // An array is a batch of rows: one await for a whole upstream page.
      if (Array.isArray(value)) {
        for (const row of value) {
          if (!take(row)) return { items, next: { cursor, skip: sinceCursor } };
        }
      } else if (!take(value)) {
        return { items, next: { cursor, skip: sinceCursor } };
      }
    }
  } finally {
    await iterator.return?.();
  }
}
