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
const MAX_TYPE = 1_000;
const MAX_SIG = 200;
/** The `nextPageConfig` object as sent. Exported for the test of its direct path. */
export const wire = z.object({
  weft: z.literal(2),
  type: z.string().max(MAX_TYPE),
  state: z.string().max(MAX_STATE),
  sig: z.string().max(MAX_SIG),
});

/** The signed state inside it, decoded. */
export const stateJson = z.object({ c: z.custom<JsonValue>().optional(), s: z.number().int().min(0) });

function mac(key: Buffer, type: string, state: string): Buffer;
function mac(key: Buffer, type: string, state: string, encoding: 'base64url'): string;
function mac(key: Buffer, type: string, state: string, encoding?: 'base64url'): Buffer | string {
  const hmac = createHmac('sha256', key).update(`weft-page\n${type}\n${state}`);
  // Straight to text when signing: a digest Buffer made in C++ has a backing store of its own
  // for the garbage collector to track, only to be turned into text at once.
  return encoding ? hmac.digest(encoding) : hmac.digest();
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
  return { weft: 2, type, state: payload, sig: mac(keysOr(keys).sign, type, payload, 'base64url') };
}

/**
 * Reads `pagination` back. Null (first page) gives the start state; anything this app did not
 * sign (forged, tampered, another app's or another key's), or signed for another type, is an
 * error message for a 400.
 */
export function decodePageState(type: string, pagination: unknown, keys?: PageKeys): PageState | string {
  if (pagination === null || pagination === undefined) return { cursor: undefined, skip: 0 };
  const parsed = readWire(pagination);
  if (!parsed) return '`pagination` is not a nextPageConfig produced by this app';
  const { state, sig } = parsed;
  if (parsed.type !== type) {
    return `\`pagination\` belongs to type "${clip(parsed.type)}", not to the requested type "${clip(type)}"`;
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
  const inner = readState(decoded);
  if (!inner) return '`pagination` is not a nextPageConfig produced by this app';
  return { cursor: inner.c, skip: inner.s };
}

type Wire = z.infer<typeof wire>;
type StateJson = z.infer<typeof stateJson>;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

// Every data request carries a state, so its two checks take a direct path when the value
// plainly fits (strings within their limits in UTF-16 units, hence in code points too) and
// leave anything else to the zod schemas, whose verdict is then final: the direct path only
// ever accepts what the schemas accept, and returns the same fields.

export function readWire(value: unknown): Wire | undefined {
  if (
    isRecord(value) &&
    value.weft === 2 &&
    typeof value.type === 'string' &&
    value.type.length <= MAX_TYPE &&
    typeof value.state === 'string' &&
    value.state.length <= MAX_STATE &&
    typeof value.sig === 'string' &&
    value.sig.length <= MAX_SIG
  ) {
    return { weft: 2, type: value.type, state: value.state, sig: value.sig };
  }
  const parsed = wire.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

export function readState(value: unknown): StateJson | undefined {
  if (isRecord(value) && Number.isSafeInteger(value.s) && (value.s as number) >= 0) {
    const out: StateJson = { s: value.s as number };
    if ('c' in value) out.c = value.c as JsonValue;
    return out;
  }
  const parsed = stateJson.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
