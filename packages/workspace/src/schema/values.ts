import { WorkspaceError } from '../errors.js';
import type { PrimitiveType } from './catalog.js';

// How each primitive field type is stored, read back as JSON, and checked on the way in.

export const COLUMN_TYPE: Record<PrimitiveType, string> = {
  'svc/int': 'bigint',
  'svc/decimal': 'numeric',
  'svc/bool': 'boolean',
  'svc/text': 'text',
  'svc/email': 'text',
  'svc/emoji': 'text',
  'svc/date': 'date',
  'svc/date-time': 'timestamptz',
  'svc/date-range': 'jsonb',
  'svc/date-time-range': 'jsonb',
  'svc/location': 'jsonb',
  'svc/uuid': 'uuid',
  'svc/rank': 'bigint',
  'svc/json-value': 'jsonb',
  'svc/url': 'text',
  'svc/color': 'text',
};

/** The primitive types held as text, which the text operators (q/contains and the like) apply to. */
export const TEXT_TYPES: ReadonlySet<string> = new Set([
  'svc/text',
  'svc/email',
  'svc/emoji',
  'svc/url',
  'svc/color',
]);

const TIMESTAMP_FORMAT = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

/** SQL turning a stored column into its JSON shape: decimals and dates as strings. */
export function outputExpr(type: string, column: string): string {
  switch (type) {
    case 'svc/decimal':
      return `(${column})::text`;
    case 'svc/date':
      return `to_char(${column}, 'YYYY-MM-DD')`;
    case 'svc/date-time':
      return `to_char((${column}) AT TIME ZONE 'UTC', ${TIMESTAMP_FORMAT})`;
    default:
      return column;
  }
}

/** The SQL type a parameter compared with this field is cast to. */
export function paramCast(type: string): string {
  return COLUMN_TYPE[type as PrimitiveType] ?? 'text';
}

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})$/;
/** 1 at the char codes of hexadecimal digits, either case. */
const HEX = new Uint8Array(128);
for (const c of '0123456789abcdefABCDEF') HEX[c.charCodeAt(0)] = 1;

/** Whether the characters of `s` from `from` to `to` are all hexadecimal digits. */
function hexRun(s: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c >= 128 || HEX[c] === 0) return false;
  }
  return true;
}

/**
 * A uuid in its text form (8-4-4-4-12 hexadecimal digits, either case), as the database reads it.
 * Checked without a regex: a bulk create checks two per row (its id and a reference), and this
 * takes under half the regex's time.
 */
export function isUuid(v: unknown): v is string {
  return (
    typeof v === 'string' &&
    v.length === 36 &&
    v.charCodeAt(8) === 45 &&
    v.charCodeAt(13) === 45 &&
    v.charCodeAt(18) === 45 &&
    v.charCodeAt(23) === 45 &&
    hexRun(v, 0, 8) &&
    hexRun(v, 9, 13) &&
    hexRun(v, 14, 18) &&
    hexRun(v, 19, 23) &&
    hexRun(v, 24, 36)
  );
}

const MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
/** The number written by the digits of `s` from `at` to `end` (already known to be digits). */
function digitsAt(s: string, at: number, end: number): number {
  let n = 0;
  for (let i = at; i < end; i++) n = n * 10 + s.charCodeAt(i) - 48;
  return n;
}
/** A real calendar day (proleptic Gregorian), checked without a Date: bulk creates check thousands. */
function isDate(v: unknown): v is string {
  if (typeof v !== 'string' || !DATE_RE.test(v)) return false;
  return isDay(v);
}
/** The `YYYY-MM-DD` that starts `v` (digits where they go) is a real calendar day. */
function isDay(v: string): boolean {
  const y = digitsAt(v, 0, 4);
  const m = digitsAt(v, 5, 7);
  const d = digitsAt(v, 8, 10);
  if (m < 1 || m > 12 || d < 1 || d > MONTH_DAYS[m - 1]!) return false;
  return m !== 2 || d < 29 || (y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0));
}
/** What toISOString prints: `YYYY-MM-DDTHH:MM:SS.sssZ`. */
const ISO_INSTANT_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * A date-time already in the form the API stores and prints, of a real day and time: it is its own
 * ISO form, so a bulk write of such values (what every client that prints its dates with
 * toISOString sends) skips the Date round trip. Anything else (an offset, fewer digits, a day the
 * calendar lacks, 24:00) takes the full parse.
 */
function isCanonicalInstant(v: string): boolean {
  if (!ISO_INSTANT_RE.test(v) || !isDay(v)) return false;
  return digitsAt(v, 11, 13) < 24 && digitsAt(v, 14, 16) < 60 && digitsAt(v, 17, 19) < 60;
}

const isDateTime = (v: unknown): v is string =>
  typeof v === 'string' && DATE_TIME_RE.test(v) && !Number.isNaN(Date.parse(v));
/** Postgres text and jsonb cannot hold NUL characters: they are dropped from strings and keys. */
function withoutNul(value: unknown): unknown {
  if (typeof value === 'string') return value.replaceAll('\0', '');
  if (Array.isArray(value)) return value.map(withoutNul);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replaceAll('\0', ''), withoutNul(v)]));
  }
  return value;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function invalid(field: string, type: string, value: unknown): WorkspaceError {
  const shown = JSON.stringify(value) ?? String(value);
  return new WorkspaceError(
    400,
    'invalid-value',
    `Field ${field} (${type}) cannot hold ${shown.length > 80 ? `${shown.slice(0, 80)}…` : shown}`,
  );
}

/** Checks a value given for a primitive field and returns what to bind as the SQL parameter. */
export function inputValue(field: string, type: string, value: unknown): unknown {
  if (value === null) return null;
  switch (type) {
    case 'svc/int':
    case 'svc/rank':
      if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
      break;
    case 'svc/decimal':
      if (typeof value === 'number' && Number.isFinite(value)) return String(value);
      if (typeof value === 'string' && /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(value) && value.length <= 100)
        return value;
      break;
    case 'svc/bool':
      if (typeof value === 'boolean') return value;
      break;
    case 'svc/text':
    case 'svc/email':
    case 'svc/emoji':
    case 'svc/url':
    case 'svc/color':
      // (most texts hold no NUL: looking is cheaper than replacing)
      if (typeof value === 'string') return value.includes('\0') ? value.replaceAll('\0', '') : value;
      break;
    case 'svc/date':
      if (isDate(value)) return value;
      break;
    case 'svc/date-time':
      if (typeof value === 'string' && isCanonicalInstant(value)) return value;
      // isDateTime, parsing once: bulk creates check thousands.
      if (typeof value === 'string' && DATE_TIME_RE.test(value)) {
        const ms = Date.parse(value);
        if (!Number.isNaN(ms)) return new Date(ms).toISOString();
      }
      break;
    case 'svc/date-range':
      if (isPlainObject(value) && isDate(value.start) && isDate(value.end))
        return JSON.stringify({ start: value.start, end: value.end });
      break;
    case 'svc/date-time-range':
      if (isPlainObject(value) && isDateTime(value.start) && isDateTime(value.end))
        return JSON.stringify({
          start: new Date(value.start).toISOString(),
          end: new Date(value.end).toISOString(),
        });
      break;
    case 'svc/location':
      if (
        isPlainObject(value) &&
        typeof value.longitude === 'number' &&
        typeof value.latitude === 'number' &&
        (value.fullAddress === undefined || typeof value.fullAddress === 'string') &&
        (value.addressParts === undefined || isPlainObject(value.addressParts))
      )
        return JSON.stringify(withoutNul(value));
      break;
    case 'svc/uuid':
      if (isUuid(value)) return value;
      break;
    case 'svc/json-value':
      if (isPlainObject(value)) return JSON.stringify(withoutNul(value));
      break;
  }
  throw invalid(field, type, value);
}

/** A filter parameter for a field: like an input value, but dates may be compared with date-times. */
export function filterValue(field: string, type: string, value: unknown): unknown {
  if (value === null) return null;
  if (type === 'svc/date-time' && isDate(value)) return value;
  if (type === 'svc/date' && isDateTime(value)) return value.slice(0, 10);
  if (type === 'svc/json-value' || type === 'svc/location') return inputValue(field, type, value);
  if (type === 'svc/date-range') {
    if (isDate(value)) return value;
  }
  if (type === 'svc/date-time-range') {
    if (isDateTime(value)) return new Date(value).toISOString();
    if (isDate(value)) return value;
  }
  return inputValue(field, type, value);
}
