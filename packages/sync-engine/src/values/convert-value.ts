// App values as the service reads them, one reading for the app host (which stores them) and the
// conformance kit (which judges them): decimals from numbers or numeric strings, booleans from text
// (true/yes/on/1/checked), dates without zero padding (2024-3-5), ranges and locations from objects
// or JSON strings, lists joined with ", ". A value that cannot be converted is stored empty (null)
// and counted, rather than failing the run. A value the service takes only by coercing it (a
// number sent as text) is converted and reported through `note`, so a run can count what its app
// sends loosely, and the kit can warn of it.

/** How a field's values are read: its primitive conversion, or what the host makes of it instead. */
export type Conversion =
  | 'id'
  | 'text'
  | 'email'
  | 'emoji'
  | 'int'
  | 'decimal'
  | 'bool'
  | 'date'
  | 'date-time'
  | 'date-range'
  | 'date-time-range'
  | 'location'
  | 'list';

/** What a coercion was, as a run's warning names it. */
export type Coercion =
  | 'number sent as text'
  | 'boolean sent as a number'
  | 'date without zero padding'
  | 'number or boolean sent for text'
  | 'object sent for text'
  | 'date range sent as an object, not the JSON string the service takes'
  | 'date sent as a number'
  | 'date not in ISO 8601 form'
  | 'fraction sent for a whole number (rounded)'
  | 'open date range (one side missing), stored as the one day or time it names';

/**
 * How a field of the app's schema is read: a primitive conversion, or rich text, a select option
 * (enum) or files (URLs), which the host stores its own way. Relations are read by relationTargets.
 */
export function conversionOf(field: {
  type?: string | undefined;
  subType?: string | undefined;
}): Conversion | 'rich' | 'enum' | 'files' {
  const sub = field.subType;
  if ((field.type === 'array[text]' || field.type === 'text') && (sub === 'file' || sub === 'files'))
    return 'files';
  switch (field.type) {
    case 'id':
      return 'id';
    case 'number':
      return sub === 'integer' ? 'int' : 'decimal';
    case 'date':
      if (sub === 'day') return 'date';
      if (sub === 'date-range' || sub === 'date-time-range') return sub;
      return 'date-time';
    case 'array[text]':
      // The service's own Intercom app sends a conversation's messages so: a list of HTML parts,
      // shown as one rich text (see richText).
      return sub === 'html' || sub === 'md' ? 'rich' : 'list';
    default:
      switch (sub) {
        case 'email':
          return 'email';
        case 'boolean':
          return 'bool';
        case 'icon':
          return 'emoji';
        case 'md':
        case 'html':
          return 'rich';
        case 'single-select':
        case 'workflow':
          return 'enum';
        case 'multi-select':
          return 'list';
        case 'date-range':
        case 'date-time-range':
          return sub;
        case 'location':
          return 'location';
        default:
          return 'text';
      }
  }
}

const TRUE_WORDS = new Set(['true', 'yes', 'on', '1', 'checked']);
const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
/** An ISO 8601 date or date-time (`2024-03-05`, `2024-03-05T…`), in whatever precision. */
const ISO_START = /^[+-]?\d{4,6}-\d{2}-\d{2}(?:$|T)/;

const parseJson = (v: unknown): unknown => {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return undefined;
  }
};

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Date-times as the slow path reads them: any form Date.parse takes, or epoch milliseconds. */
export function toIsoSlow(v: unknown): string | undefined {
  if (typeof v !== 'string' && typeof v !== 'number') return undefined;
  const t = typeof v === 'number' ? v : Date.parse(v);
  return Number.isFinite(t) ? new Date(t).toISOString() : undefined;
}

/** Apps mostly send what toISOString prints; such a value converts to itself (see canonicalIso). */
export function toIso(v: unknown): string | undefined {
  return typeof v === 'string' && canonicalIso(v) ? v : toIsoSlow(v);
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The two digits at `i` as a number, or -1 when they are not two digits. */
function two(s: string, i: number): number {
  const a = s.charCodeAt(i) - 48;
  const b = s.charCodeAt(i + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

/**
 * True when `s` is exactly what `new Date(Date.parse(s)).toISOString()` gives back:
 * `YYYY-MM-DDTHH:mm:ss.sssZ` naming a real instant (the day exists in its month, hours 00-23).
 * Anything else (other forms, Feb 30th, which Date.parse rolls over into March, 24:00) is left to
 * the slow path, so both give the same answer for every string; checked without a regex or a
 * Date because a page converts thousands.
 */
export function canonicalIso(s: string): boolean {
  if (s.length !== 24 || s.charCodeAt(23) !== 90 /* Z */) return false;
  if (s[4] !== '-' || s[7] !== '-' || s[10] !== 'T' || s[13] !== ':' || s[16] !== ':' || s[19] !== '.')
    return false;
  const hi = two(s, 0);
  const lo = two(s, 2);
  const month = two(s, 5);
  const day = two(s, 8);
  if (hi < 0 || lo < 0 || month < 1 || month > 12 || day < 1) return false;
  const year = hi * 100 + lo;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 && leap ? 29 : (MONTH_DAYS[month - 1] as number);
  if (day > days) return false;
  const hour = two(s, 11);
  const minute = two(s, 14);
  const second = two(s, 17);
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return false;
  const ms = s.charCodeAt(20) - 48;
  return ms >= 0 && ms <= 9 && two(s, 21) >= 0;
}

/** `2024-3-5` (and `2024-3-5T…`) as `2024-03-05`; undefined when `v` is not such a date. */
function padDate(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})(?=$|[T ])/.exec(v);
  if (!m || (m[2]?.length === 2 && m[3]?.length === 2)) return undefined;
  return `${m[1]}-${m[2]?.padStart(2, '0')}-${m[3]?.padStart(2, '0')}${v.slice(m[0].length)}`;
}

function toDay(v: unknown, note?: (c: Coercion) => void): string | undefined {
  if (typeof v === 'string' && DATE_RE.test(v)) return v;
  const padded = padDate(v);
  if (padded !== undefined) {
    const day = toDay(padded);
    if (day !== undefined) note?.('date without zero padding');
    return day;
  }
  return looseDate(v, note)?.slice(0, 10);
}

/** A date-time the slow path reads (epoch milliseconds, another text form), noted as such. */
function looseDate(v: unknown, note?: (c: Coercion) => void): string | undefined {
  const iso = toIsoSlow(v);
  if (iso !== undefined)
    if (typeof v === 'number') note?.('date sent as a number');
    else if (!ISO_START.test(v as string)) note?.('date not in ISO 8601 form');
  return iso;
}

function toDateTime(v: unknown, note?: (c: Coercion) => void): string | undefined {
  // What apps mostly send, checked before the padding's regex: it needs no padding.
  if (typeof v === 'string' && canonicalIso(v)) return v;
  const padded = padDate(v);
  if (padded === undefined) return looseDate(v, note);
  // A day alone is that day at midnight UTC, as `2024-03-05` is, not midnight where weft runs.
  const iso = toIso(padded);
  if (iso !== undefined) note?.('date without zero padding');
  return iso;
}

/**
 * The texts of a list value: an array, or a comma-separated text as the service also takes for a
 * multi-select; an element `{url}` or `{name}` is that text. Empty texts are dropped.
 */
export function listItems(value: unknown): string[] {
  if (value === null || value === undefined || value === '') return [];
  const items = Array.isArray(value) ? value : String(value).split(',');
  return items
    .filter((v) => v !== null && v !== undefined)
    .map((v) => (isObject(v) ? String(v.url ?? v.name ?? JSON.stringify(v)) : String(v).trim()))
    .filter((s) => s !== '');
}

/** The workspace value, `null` for empty, or `undefined` when the value does not fit. */
export function convertValue(
  conversion: Conversion,
  value: unknown,
  note?: (coercion: Coercion) => void,
): unknown {
  if (value === null || value === undefined || value === '') return null;
  switch (conversion) {
    case 'id':
      // Ids are numbers as often as text: either is the id, stored as its text.
      return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
    case 'text':
    case 'email':
    case 'emoji':
      if (typeof value === 'string') return value;
      note?.(typeof value === 'object' ? 'object sent for text' : 'number or boolean sent for text');
      return typeof value === 'object' ? JSON.stringify(value) : String(value);
    case 'int': {
      if (typeof value === 'number') {
        if (!Number.isFinite(value)) return undefined;
        if (!Number.isInteger(value)) note?.('fraction sent for a whole number (rounded)');
        return Math.round(value);
      }
      if (typeof value !== 'string' || value.trim() === '') return undefined;
      const n = Number(value);
      if (!Number.isFinite(n)) return undefined;
      note?.('number sent as text');
      return Math.round(n);
    }
    case 'decimal': {
      if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
      if (typeof value === 'string' && /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(value.trim())) {
        note?.('number sent as text');
        return value.trim();
      }
      return undefined;
    }
    case 'bool':
      if (typeof value === 'boolean') return value;
      if (typeof value !== 'number' && typeof value !== 'string') return undefined;
      // text/boolean is a text field: "true"/"false" (and yes/on/checked) is its wire form, no coercion.
      if (typeof value === 'number') note?.('boolean sent as a number');
      return typeof value === 'number' ? value !== 0 : TRUE_WORDS.has(value.trim().toLowerCase());
    case 'date':
      return toDay(value, note);
    case 'date-time':
      return toDateTime(value, note);
    case 'date-range':
    case 'date-time-range': {
      const o = parseJson(value);
      if (!isObject(o)) return undefined;
      if (o === value) note?.('date range sent as an object, not the JSON string the service takes');
      const conv = conversion === 'date-range' ? toDay : toDateTime;
      const open = (side: unknown) => side === undefined || side === null;
      const start = open(o.start) ? null : conv(o.start, note);
      const end = open(o.end) ? null : conv(o.end, note);
      // A side that is not a date, or no date at all: nothing to store.
      if (start === undefined || end === undefined || (start === null && end === null)) return undefined;
      if (start !== null && end !== null) return { start, end };
      // The service takes a range open on one side; a stored range has both, so it is the one
      // day (or instant) it names, rather than nothing.
      note?.('open date range (one side missing), stored as the one day or time it names');
      const day = (start ?? end) as string;
      return { start: day, end: day };
    }
    case 'location': {
      if (typeof value === 'string') {
        const m = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/.exec(value);
        if (m) return { latitude: Number(m[1]), longitude: Number(m[2]), fullAddress: value.trim() };
      }
      const o = parseJson(value);
      if (!isObject(o)) return undefined;
      const latitude = Number(o.latitude);
      const longitude = Number(o.longitude);
      if (!Number.isFinite(latitude) || !Number.isFinite(longitude)) return undefined;
      return {
        latitude,
        longitude,
        ...(typeof o.fullAddress === 'string' ? { fullAddress: o.fullAddress } : {}),
        ...(isObject(o.addressParts) ? { addressParts: o.addressParts } : {}),
      };
    }
    case 'list': {
      const texts = listItems(value);
      return texts.length > 0 ? texts.join(', ') : null;
    }
  }
}
