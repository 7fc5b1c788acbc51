import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { JsonValue } from '../define/markers.js';
import { clip } from '../logging/clip.js';
import { silentLogger } from '../logging/logger.js';
import { type PageKeys, resolvePageKeys } from './page-keys.js';

/**
 * Everything needed to serve the next page, carried by the service in `nextPageConfig`:
 * the handler's last resume state, and how many rows it yielded after that state that were
 * already sent. No server keeps anything between pages.
 */
export interface PageState {
  cursor: JsonValue | undefined;
  skip: number;
}

/** Longest encoded state accepted back; a handler's cursor is an id or an offset, not a payload. */
const MAX_STATE = 64 * 1024;

// `state` is base64url JSON, so the signature covers exact bytes whatever a store does to key
// order or number formatting of the object around it.
const wire = z.object({
  weft: z.literal(2),
  type: z.string().max(1_000),
  state: z.string().max(MAX_STATE),
  sig: z.string().max(200),
});

const stateJson = z.object({ c: z.custom<JsonValue>().optional(), s: z.number().int().min(0) });

function mac(key: Buffer, type: string, state: string): Buffer {
  return createHmac('sha256', key).update(`weft-page\n${type}\n${state}`).digest();
}

let defaultKeys: PageKeys | undefined;
function keysOr(keys: PageKeys | undefined): PageKeys {
  if (keys) return keys;
  defaultKeys ??= resolvePageKeys(undefined, silentLogger);
  return defaultKeys;
}

/** The `nextPageConfig` object for a state: the state, signed with the first page key. */
export function encodePageState(type: string, state: PageState, keys?: PageKeys): Record<string, unknown> {
  const payload = Buffer.from(
    JSON.stringify(state.cursor === undefined ? { s: state.skip } : { c: state.cursor, s: state.skip }),
  ).toString('base64url');
  return { weft: 2, type, state: payload, sig: mac(keysOr(keys).sign, type, payload).toString('base64url') };
}

/**
 * Reads `pagination` back. Null (first page) gives the start state; anything this app did not
 * sign (forged, tampered, another app's or another key's), or signed for another type, is an
 * error message for a 400.
 */
export function decodePageState(type: string, pagination: unknown, keys?: PageKeys): PageState | string {
  if (pagination === null || pagination === undefined) return { cursor: undefined, skip: 0 };
  const parsed = wire.safeParse(pagination);
  if (!parsed.success) return '`pagination` is not a nextPageConfig produced by this app';
  const { state, sig } = parsed.data;
  if (parsed.data.type !== type) {
    return `\`pagination\` belongs to type "${clip(parsed.data.type)}", not to the requested type "${clip(type)}"`;
  }
  const given = Buffer.from(sig, 'base64url');
  const valid = keysOr(keys).verify.some((key) => {
    const expected = mac(key, type, state);
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
  if (!valid) return '`pagination` is not signed by this app (tampered, or signed with another key)';
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(state, 'base64url').toString('utf8'));
  } catch {
    return '`pagination` is not a nextPageConfig produced by this app';
  }
  const inner = stateJson.safeParse(decoded);
  if (!inner.success) return '`pagination` is not a nextPageConfig produced by this app';
  return { cursor: inner.data.c, skip: inner.data.s };
}
