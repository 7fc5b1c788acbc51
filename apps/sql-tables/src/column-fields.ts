// How a Postgres column becomes a field of the service: which `type`/`subType` (see the field
// table in docs/protocol.md), how to select it so both drivers return the same JavaScript value,
// and how to turn that value into what the service takes; and, for a full sync whose pages the
// database writes as JSON, the SQL expression whose JSON is that same wire value.
import { type SchemaFieldDefinition, field } from '@weft/core';
import type { ColumnType } from './introspect.js';
import { ident } from './sql.js';

/** A column read as a field. */
export interface ColumnReader {
  /** The schema entry; undefined when the column is not synced (binary data). */
  field: (options: { name: string; description?: string }) => SchemaFieldDefinition;
  /** The select-list expression for the column, given its quoted reference. */
  select: (ref: string) => string;
  /** The driver's value → the item's value (null stays null). */
  convert: (value: unknown) => unknown;
  /**
   * The SQL expression, given the column's quoted reference, whose value Postgres turns (with
   * `to_json`, in a UTC session) into exactly the JSON of the wire value that `convert` gives and
   * core's serializer sends. Undefined: no such form; a table with such a column is read by rows.
   */
  json?: (ref: string) => string;
}

const INTEGER_TYPES = new Set(['int2', 'int4', 'int8', 'oid']);
const FLOAT_TYPES = new Set(['float4', 'float8']);
const TEXT_TYPES = new Set(['text', 'varchar', 'bpchar', 'name', 'citext', 'char']);
/** Types the app does not sync: binary data and search vectors mean nothing as a field. */
const SKIPPED_TYPES = new Set(['bytea', 'tsvector', 'tsquery']);

const asNumber = (value: unknown): number | null => {
  if (value === null || value === undefined) return null;
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(n) ? n : null;
};
const asText = (value: unknown): string | null =>
  value === null || value === undefined ? null : typeof value === 'string' ? value : String(value);
/**
 * A timestamp as the session writes it (UTC, ISO style: `2026-01-02 03:04:05.123456+00`; no zone
 * for `timestamp`), or as `to_json` does inside ranges (`2026-01-02T03:04:05`) → ISO 8601 in UTC,
 * written as `to_json` writes a `timestamptz` in a UTC session (`2026-01-02T03:04:05.123456+00:00`),
 * so that pages built by the database and pages built here carry the same text.
 * `infinity`, BC dates and years past 9999 are not instants the service can store: null.
 */
const INSTANT = /^(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d(?:\.\d+)?)(?:([+-]\d\d)(?::?(\d\d))?)?$/;
const asInstant = (value: unknown): string | null => {
  if (typeof value !== 'string') return null;
  // The common case without the regular expression: a timestamptz as a UTC session writes it,
  // `YYYY-MM-DD HH:MM:SS[.ffffff]+00` (a BC date ends in ` BC`, a year past 9999 moves the dashes).
  if (
    value.length >= 22 &&
    value.charCodeAt(4) === 45 &&
    value.charCodeAt(10) === 32 &&
    value.endsWith('+00') &&
    value.indexOf('+', 19) === value.length - 3
  ) {
    return `${value.slice(0, 10)}T${value.slice(11, -3)}${UTC}`;
  }
  const match = INSTANT.exec(value);
  if (!match) return null;
  const [, day, time, hours, minutes] = match;
  if (hours === undefined || (hours === '+00' && (minutes === undefined || minutes === '00'))) {
    return `${day}T${time}${UTC}`;
  }
  // Another zone (a session that is not UTC): to UTC, at the millisecond JavaScript keeps.
  const date = new Date(`${day}T${time}${hours}:${minutes ?? '00'}`);
  return Number.isNaN(date.getTime()) ? null : `${date.toISOString().slice(0, -1)}${UTC}`;
};
const UTC = '+00:00';
/** `infinity` and BC dates are not dates the service can store. */
const asDay = (value: unknown): string | null =>
  typeof value === 'string' && /^\d{4}-\d\d-\d\d$/.test(value) ? value : null;

/** A reader for a column of this type; undefined when the column is not synced. */
export function columnReader(type: ColumnType, columnName: string): ColumnReader | undefined {
  if (SKIPPED_TYPES.has(type.name)) return undefined;
  if (INTEGER_TYPES.has(type.name)) {
    // `to_json` writes an oid as a string: as a bigint it is a number.
    const json = type.name === 'oid' ? (r: string) => `${r}::int8` : (r: string) => r;
    return { field: (o) => field.integer(o), select: (r) => r, convert: asNumber, json };
  }
  if (type.name === 'numeric') {
    return {
      field: (o) => field.number(type.scale === undefined ? o : { ...o, precision: type.scale }),
      select: (r) => r,
      convert: asNumber,
      // NaN, ±Infinity and numbers past a double's range are null here (Number() is not finite).
      json: (r) => `CASE WHEN ${r} BETWEEN ${-DOUBLE_MAX} AND ${DOUBLE_MAX} THEN ${r} END`,
    };
  }
  if (FLOAT_TYPES.has(type.name)) {
    const t = type.name;
    return {
      field: (o) => field.number(o),
      select: (r) => r,
      convert: asNumber,
      // Finite only (NaN sorts above Infinity in Postgres); `+ 0` turns -0 into 0, as JSON.stringify does.
      json: (r) => `CASE WHEN ${r} > '-Infinity'::${t} AND ${r} < 'Infinity'::${t} THEN ${r} + '0'::${t} END`,
    };
  }
  if (type.name === 'money') {
    return {
      field: (o) => field.number({ ...o, precision: 2 }),
      select: (r) => `${r}::numeric`,
      convert: asNumber,
      json: (r) => `${r}::numeric`,
    };
  }
  if (type.name === 'bool') {
    return {
      field: (o) => field.bool(o),
      select: (r) => r,
      // The wire form (`text/boolean` takes "true"/"false") right away: core's serializer then
      // passes the item as it is instead of copying it to convert the value.
      convert: (v) => (typeof v === 'boolean' ? String(v) : null),
      json: (r) => `${r}::text`,
    };
  }
  if (type.name === 'date') {
    return {
      field: (o) => field.day(o),
      select: (r) => r,
      convert: asDay,
      // `to_json` writes a date as YYYY-MM-DD whatever the DateStyle.
      json: (r) => `CASE WHEN ${r} BETWEEN '0001-01-01'::date AND '9999-12-31'::date THEN ${r} END`,
    };
  }
  if (type.name === 'timestamptz') {
    return {
      field: (o) => field.date(o),
      select: (r) => r,
      convert: asInstant,
      json: (r) =>
        `CASE WHEN ${r} BETWEEN '0001-01-01 00:00:00+00'::timestamptz AND '9999-12-31 23:59:59.999999+00'::timestamptz THEN ${r} END`,
    };
  }
  if (type.name === 'timestamp') {
    // No zone stored: read as UTC (documented in the README).
    return {
      field: (o) => field.date(o),
      select: (r) => r,
      convert: asInstant,
      json: (r) =>
        `CASE WHEN ${r} BETWEEN '0001-01-01 00:00:00'::timestamp AND '9999-12-31 23:59:59.999999'::timestamp THEN ${r} AT TIME ZONE 'UTC' END`,
    };
  }
  if (type.typtype === 'e') {
    return {
      field: (o) => field.singleSelect({ ...o, options: (type.labels ?? []).map((name) => ({ name })) }),
      select: (r) => `${r}::text`,
      convert: asText,
      json: (r) => `${r}::text`,
    };
  }
  if (type.category === 'A' && type.element) {
    const element = type.element;
    const list = (v: unknown) =>
      Array.isArray(v)
        ? v.filter((x) => x !== null).map((x) => (typeof x === 'string' ? x : JSON.stringify(x)))
        : null;
    // Elements whose JSON is a string or an integer: Postgres then writes each as JSON.stringify
    // would. (Other numbers differ in form: `12.50`, `1e-05`; those arrays are read by rows.)
    const json =
      element.typtype === 'e' || TEXT_TYPES.has(element.name) || INTEGER_TYPES.has(element.name)
        ? listJson
        : undefined;
    if (element.typtype === 'e') {
      return {
        field: (o) => field.multiSelect({ ...o, options: (element.labels ?? []).map((name) => ({ name })) }),
        select: (r) => `to_json(${r})`,
        convert: list,
        ...(json ? { json } : {}),
      };
    }
    return {
      field: (o) => field.textArray(o),
      select: (r) => `to_json(${r})`,
      convert: list,
      ...(json ? { json } : {}),
    };
  }
  if (type.name === 'daterange') {
    return {
      field: (o) => field.dateRange(o),
      select: (r) => `${r}::text`,
      convert: dateRange,
      // The wire value is the JSON *string* of {start, end}, the end inclusive (a daterange is
      // always `[lower,upper)`); unbounded, empty, infinite or out-of-range bounds are null.
      json: (r) =>
        `CASE WHEN lower(${r}) BETWEEN '0001-01-01'::date AND '9999-12-31'::date AND upper(${r}) BETWEEN '0001-01-01'::date AND '9999-12-31'::date THEN '{"start":"' || to_char(lower(${r}), 'YYYY-MM-DD') || '","end":"' || to_char(upper(${r}) - 1, 'YYYY-MM-DD') || '"}' END`,
    };
  }
  if (type.name === 'tsrange' || type.name === 'tstzrange') {
    const zone = type.name === 'tstzrange' ? ` AT TIME ZONE 'UTC'` : '';
    return {
      field: (o) => field.dateTimeRange(o),
      select: (r) =>
        `CASE WHEN lower_inf(${r}) OR upper_inf(${r}) OR isempty(${r}) THEN NULL ELSE json_build_array(to_json(lower(${r})${zone}) #>> '{}', to_json(upper(${r})${zone}) #>> '{}') END`,
      convert: (v) => {
        if (!Array.isArray(v)) return null;
        const [start, end] = v.map(asInstant);
        return start && end ? { start, end } : null;
      },
    };
  }
  if (type.name === 'point') {
    return {
      field: (o) => field.location(o),
      select: (r) => `${r}::text`,
      convert: point,
      json: (r) =>
        `CASE WHEN ${r}::text ~ '${POINT_SQL}' THEN regexp_replace(${r}::text, '${POINT_SQL}', '${LOCATION_SQL}') END`,
    };
  }
  if (TEXT_TYPES.has(type.name)) {
    const lower = columnName.toLowerCase();
    const kind = /(^|_)e?mail$/.test(lower)
      ? 'email'
      : /(^|_)(url|website|homepage|link)$/.test(lower)
        ? 'url'
        : 'text';
    return {
      field: (o) => (kind === 'email' ? field.email(o) : kind === 'url' ? field.url(o) : field.text(o)),
      select: (r) => r,
      convert: asText,
      json: (r) => r,
    };
  }
  // uuid, json, jsonb, time, interval, inet, xml, other ranges, composite types...: their text.
  return {
    field: (o) => field.text(o),
    select: (r) => `${r}::text`,
    convert: asText,
    json: (r) => `${r}::text`,
  };
}

/** The largest integer a double holds exactly (2^53 - 1): JSON numbers past it are rounded. */
export const MAX_EXACT = Number.MAX_SAFE_INTEGER;

/**
 * The reader of a column whose values identify rows: an item's `id`, a relation to another
 * table's `id`, a part of a multi-column key. A `bigint` past ±(2^53 - 1) is sent as its exact
 * decimal text (`"9007199254740993"`), not as a JSON number: a double would round it, and two
 * rows (snowflake ids, for one) would get the same id. Smaller values stay numbers, as before.
 * Other types identify rows exactly as they are read.
 */
export function identityReader(reader: ColumnReader, type: ColumnType): ColumnReader {
  if (type.name !== 'int8') return reader;
  return {
    ...reader,
    convert: exactInteger,
    json: (r) =>
      `CASE WHEN ${r} BETWEEN ${-MAX_EXACT} AND ${MAX_EXACT} THEN to_json(${r}) ELSE to_json(${r}::text) END`,
  };
}

/** A bigint as the driver returns it (text, or a number or bigint) → a number when exact, else its text. */
export function exactInteger(value: unknown): number | string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  const n = Number(value);
  if (Number.isSafeInteger(n)) return n;
  const text = String(value);
  return /^-?\d+$/.test(text) ? text : null;
}

/** Whether a column of this type can hold an item's title. */
export function isTitleType(type: ColumnType): boolean {
  return TEXT_TYPES.has(type.name) || type.name === 'uuid' || type.typtype === 'e';
}

/** `[2020-01-01,2020-02-01)` → `{start: '2020-01-01', end: '2020-01-31'}` (the service's end is inclusive). */
function dateRange(value: unknown): { start: string; end: string } | null {
  if (typeof value !== 'string') return null;
  const match = /^([[(])(\d{4}-\d\d-\d\d),(\d{4}-\d\d-\d\d)([\])])$/.exec(value);
  if (!match) return null;
  const start = match[1] === '[' ? match[2]! : shiftDay(match[2]!, 1);
  const end = match[4] === ']' ? match[3]! : shiftDay(match[3]!, -1);
  return { start, end };
}

function shiftDay(day: string, by: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + by);
  return d.toISOString().slice(0, 10);
}

/**
 * Postgres `(x,y)` is (longitude, latitude) by the usual convention. The wire value is the JSON
 * string of `{longitude, latitude}`, written here with Postgres's own digits (`1e-05` stays so),
 * so that the database's JSON form (`POINT_SQL` below) writes the very same text. NaN and
 * infinities do not match: null.
 */
function point(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const match = POINT.exec(value);
  if (!match) return null;
  return `{"longitude":${match[1]},"latitude":${match[2]}}`;
}
const POINT = /^\(([-\d.e+]+),([-\d.e+]+)\)$/;
/** The same pattern and replacement for Postgres's regular expressions. */
const POINT_SQL = '^\\(([-0-9.e+]+),([-0-9.e+]+)\\)$';
const LOCATION_SQL = '{"longitude":\\1,"latitude":\\2}';

/** The largest double: numerics beyond it are not finite in JavaScript. */
const DOUBLE_MAX = '1.7976931348623157e308';

/**
 * An array's JSON form: its elements without nulls, each as text (a string as it is, anything
 * else as its JSON), in order; null stays null, `{}` is `[]`.
 */
function listJson(r: string): string {
  return `CASE WHEN ${r} IS NOT NULL THEN coalesce((SELECT json_agg(CASE json_typeof(e) WHEN 'string' THEN e #>> '{}' ELSE e::text END ORDER BY i) FROM json_array_elements(to_json(${r})) WITH ORDINALITY AS x(e, i) WHERE json_typeof(e) <> 'null'), '[]'::json) END`;
}

/** The quoted reference of a column of the table being read. */
export function columnRef(column: string): string {
  return ident(column);
}
