import { canAccessField, type Principal } from '../auth/principal.js';
import type { FieldDef, TypeDef } from '../schema/catalog.js';
import { CREATED_BY } from '../schema/created-by.js';
import { TEXT_TYPES } from '../schema/values.js';

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

/** A field whose values the database never prints as they read (JSON: it reorders keys). */
export const neverExact = (fieldType: string): boolean => JSONB.has(fieldType);

/**
 * True when the database would print `value` (already checked by inputValue) as the same text:
 * decimals written the way Postgres prints them, dates and times in years 1000-9999, well-formed
 * strings; never for JSON values, whose keys Postgres reorders.
 */
export function exactOutput(fieldType: string, value: unknown): boolean {
  if (value === null) return true;
  if (JSONB.has(fieldType)) return false;
  if (TEXT_TYPES.has(fieldType)) return typeof value === 'string' && !LONE_SURROGATE.test(value);
  switch (fieldType) {
    case 'svc/decimal':
      return typeof value === 'string' && CANONICAL_DECIMAL.test(value) && !NEGATIVE_ZERO.test(value);
    case 'svc/date':
    case 'svc/date-time':
      return typeof value === 'string' && FOUR_DIGIT_YEAR.test(value);
    default:
      return true;
  }
}

// Rows of one insert are a microsecond apart, so most share their millisecond: its text is kept.
let lastMs = Number.NaN;
let lastIso = '';

/**
 * A timestamp given in microseconds since the epoch (a safe integer until the year 2255), printed
 * as the API prints dates and times: to the millisecond.
 */
export function isoFromMicros(us: number): string {
  const ms = Math.floor(us / 1000);
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}

/**
 * A field the entity a create or update answers shows to `user`: primitive, single-select and
 * entity fields, but svc/created-by (the service sets it in an effect of its own).
 */
export const answered = (user: Principal, type: TypeDef, f: FieldDef): boolean =>
  f.kind !== 'many' && f.storage.kind === 'column' && f.name !== CREATED_BY && canAccessField(user, type, f);

interface OutField {
  name: string;
  col: string;
  kind: FieldDef['kind'];
  uuid: boolean;
}
/** The fields a result shows, per type, for admins [0] and other users [1]. */
const outFields = new WeakMap<TypeDef, [OutField[], OutField[]]>();

function fieldsShown(type: TypeDef, user: Principal): OutField[] {
  let both = outFields.get(type);
  if (!both) {
    const list = (u: Principal) =>
      type.fields
        .filter((f) => answered(u, type, f))
        .map((f) => ({
          name: f.name,
          col: (f.storage as { col: string }).col,
          kind: f.kind,
          uuid: f.fieldType === 'svc/uuid',
        }));
    both = [list({ id: '', admin: true }), list({ id: '', admin: false })];
    outFields.set(type, both);
  }
  return both[user.admin ? 0 : 1];
}

/** Where each shown field's value comes from in a prepared row: a column's slot, or one of these. */
const ID = -1;
const PUBLIC_ID = -2;
const AT = -3;
const UNSET = -4;

/**
 * How the created rows of one run are shown to one user, worked out once per run: the fields a
 * result shows (the same fields, order and shapes as `entityJson`) and where each value is in a
 * prepared row's values (`slotOf` a column; undefined for a column no row of the run sets).
 */
export interface ResultShape {
  fields: OutField[];
  slots: number[];
}

export function resultShape(
  type: TypeDef,
  user: Principal,
  slotOf: (col: string) => number | undefined,
): ResultShape {
  const fields = fieldsShown(type, user);
  const slots = fields.map(({ col }) => {
    if (col === 'id') return ID;
    if (col === 'public_id') return PUBLIC_ID;
    if (col === 'created' || col === 'modified') return AT;
    return slotOf(col) ?? UNSET;
  });
  return { fields, slots };
}

/**
 * The entity as the API returns it: `values` are the validated values by slot (see ResultShape),
 * `at` the creation (and modification) time as printed.
 */
export function createdResult(
  shape: ResultShape,
  id: string,
  publicId: string,
  at: string,
  values: readonly unknown[],
): Row {
  const out: Row = {};
  const { fields, slots } = shape;
  for (let k = 0; k < fields.length; k++) {
    const f = fields[k]!;
    const slot = slots[k]!;
    if (slot === ID) out[f.name] = id;
    else if (slot === PUBLIC_ID) out[f.name] = publicId;
    else if (slot === AT) out[f.name] = at;
    else {
      const v = slot === UNSET ? null : (values[slot] ?? null);
      if (f.kind === 'one') out[f.name] = v === null ? null : { 'svc/id': String(v).toLowerCase() };
      else if (f.uuid && typeof v === 'string') out[f.name] = v.toLowerCase();
      else out[f.name] = v;
    }
  }
  return out;
}
