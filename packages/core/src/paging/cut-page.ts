import { MARKER, type Marker } from '../define/markers.js';
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
 * Pulls one page out of a data handler's stream. The handler was restarted from
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
  try {
    for (;;) {
      const step = await iterator.next();
      if (step.done) return { items, next: null };
      const value = step.value as Record<PropertyKey, unknown> | null;
      if (value === null || typeof value !== 'object') {
        throw new BadItemError(
          `type "${type}" yielded ${value === null ? 'null' : typeof value}, not an item object`,
        );
      }
      const marker = value[MARKER] as Marker[typeof MARKER] | undefined;
      if (marker === 'resume') {
        cursor = (value as unknown as Extract<Marker, { state: unknown }>).state;
        sinceCursor = 0;
        continue;
      }
      if (marker === 'remove' && !delta) continue;
      if (items.length === pageSize) {
        return { items, next: { cursor, skip: sinceCursor } };
      }
      sinceCursor += 1;
      if (toSkip > 0) {
        toSkip -= 1;
        continue;
      }
      if (marker === 'remove') {
        items.push({ id: (value as unknown as { id: unknown }).id, [SYNC_ACTION_FIELD]: 'REMOVE' });
        continue;
      }
      if (value.id === undefined || value.id === null) {
        throw new BadItemError(
          `type "${type}" yielded an item without \`id\` (item ${items.length + 1} of this page)`,
        );
      }
      items.push(
        delta && value[SYNC_ACTION_FIELD] === undefined
          ? { ...(value as Record<string, unknown>), [SYNC_ACTION_FIELD]: 'SET' }
          : (value as Record<string, unknown>),
      );
    }
  } finally {
    await iterator.return?.();
  }
}
