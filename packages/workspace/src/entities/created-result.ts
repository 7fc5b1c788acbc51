import { canAccessField, type Principal } from '../auth/principal.js';
import type { Catalog, TypeDef } from '../schema/catalog.js';

// The result of a create, built here instead of by the database. Sending back and parsing a JSON
// object per row was half the cost of a bulk insert; every value of a new row is known once it is
// validated, except how the database would print it. So this is used only when that printing is
// certain to be the same text (`exactOutput`), else the insert returns the rows as before.

type Row = Record<string, unknown>;

const CANONICAL_DECIMAL = /^-?(0|[1-9]\d*)(\.\d+)?$/;
const NEGATIVE_ZERO = /^-0(\.0+)?$/;
const FOUR_DIGIT_YEAR = /^[1-9]\d{3}-/;
/** Half of a UTF-16 pair on its own: the database stores a replacement character instead. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const JSONB = new Set(['svc/date-range', 'svc/date-time-range', 'svc/location', 'svc/json-value']);

/**
 * True when the database would print `value` (already checked by inputValue) as the same text:
 * decimals written the way Postgres prints them, dates and times in years 1000-9999, well-formed
 * strings; never for JSON values, whose keys Postgres reorders.
 */
export function exactOutput(fieldType: string, value: unknown): boolean {
  if (value === null) return true;
  if (JSONB.has(fieldType)) return false;
  switch (fieldType) {
    case 'svc/decimal':
      return typeof value === 'string' && CANONICAL_DECIMAL.test(value) && !NEGATIVE_ZERO.test(value);
    case 'svc/date':
    case 'svc/date-time':
      return typeof value === 'string' && FOUR_DIGIT_YEAR.test(value);
    case 'svc/text':
    case 'svc/email':
    case 'svc/emoji':
      return typeof value === 'string' && !LONE_SURROGATE.test(value);
    default:
      return true;
  }
}

/** A timestamp given in microseconds since the epoch, printed as the API prints dates and times. */
export function isoFromMicros(us: bigint): string {
  return new Date(Number(us / 1000n)).toISOString();
}

/**
 * The entity as the API returns it (the same fields, order and shapes as `entityJson`): `columns`
 * are the validated values by column, `micros` the creation (and modification) time.
 */
export function createdResult(
  _catalog: Catalog,
  type: TypeDef,
  user: Principal,
  id: string,
  publicId: string,
  micros: bigint,
  columns: Map<string, unknown>,
): Row {
  const out: Row = {};
  for (const f of type.fields) {
    if (f.kind === 'many' || f.storage.kind !== 'column' || !canAccessField(user, type, f)) continue;
    const col = f.storage.col;
    if (col === 'id') out[f.name] = id;
    else if (col === 'public_id') out[f.name] = publicId;
    else if (col === 'created' || col === 'modified') out[f.name] = isoFromMicros(micros);
    else {
      const v = columns.get(col) ?? null;
      if (f.kind === 'one') out[f.name] = v === null ? null : { 'svc/id': String(v).toLowerCase() };
      else if (f.fieldType === 'svc/uuid' && typeof v === 'string') out[f.name] = v.toLowerCase();
      else out[f.name] = v;
    }
  }
  return out;
}
