import { z } from 'zod';
import type { JsonValue } from '../define/markers.js';

/**
 * Everything needed to serve the next page, carried by the service in `nextPageConfig`:
 * the handler's last resume state, and how many rows it yielded after that state that were
 * already sent. No server keeps anything between pages.
 */
export interface PageState {
  cursor: JsonValue | undefined;
  skip: number;
}

const wire = z.object({
  weft: z.literal(1),
  type: z.string(),
  cursor: z.custom<JsonValue>().optional(),
  skip: z.number().int().min(0),
});

/** The `nextPageConfig` object for a state. */
export function encodePageState(type: string, state: PageState): Record<string, unknown> {
  return state.cursor === undefined
    ? { weft: 1, type, skip: state.skip }
    : { weft: 1, type, cursor: state.cursor, skip: state.skip };
}

/**
 * Reads `pagination` back. Null (first page) gives the start state; anything this app did not
 * produce, or produced for another type, is an error message for a 400.
 */
export function decodePageState(type: string, pagination: unknown): PageState | string {
  if (pagination === null || pagination === undefined) return { cursor: undefined, skip: 0 };
  const parsed = wire.safeParse(pagination);
  if (!parsed.success) return '`pagination` is not a nextPageConfig produced by this app';
  if (parsed.data.type !== type) {
    return `\`pagination\` belongs to type "${parsed.data.type}", not to the requested type "${type}"`;
  }
  return { cursor: parsed.data.cursor, skip: parsed.data.skip };
}
