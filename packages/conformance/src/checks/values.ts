import {
  type Coercion,
  conversionOf,
  convertValue,
  type RelationCoercion,
  relationTargets,
} from '@weft/sync-engine';
import { isPlainObject, show } from '../util.js';
import type { FieldInfo } from './schema.js';

// A row value against its field, read as the service reads it: by the same conversion the app
// host stores it with (@weft/sync-engine's convertValue and relationTargets). A value the host
// cannot read (it stores it empty) fails; one it takes only by coercing it (a number sent as
// text, a many-to-many as a JSON string) warns, in the host's words. Date ranges keep a judgement
// of their own (below): the kit takes an open range, which the host does not store yet.

/** Why a row value does not fit its field: `fail` when the service would refuse or lose it. */
export interface ValueFinding {
  status: 'fail' | 'warn';
  reason: string;
}

const fail = (reason: string): ValueFinding => ({ status: 'fail', reason });
const RANGE_SUBTYPES = new Set(['date-range', 'date-time-range']);
const RANGE_EXAMPLE = '"{\\"start\\":\\"2020-01-22\\",\\"end\\":\\"2020-08-19\\"}"';

/** What each conversion needs, for the reason of a value it cannot read. */
const NEEDS: Record<string, string> = {
  id: 'a string or number',
  int: 'a whole number',
  decimal: 'a number',
  bool: 'a boolean',
  date: 'an ISO 8601 date',
  'date-time': 'an ISO 8601 date',
  location: '{latitude, longitude} or "lat, lon"',
};

/** How a value fits its field (type, subType, relation); undefined when it fits. */
export function judgeValue(field: FieldInfo, value: unknown): ValueFinding | undefined {
  if (value === null || value === undefined) return undefined;
  const coerced: string[] = [];
  const note = (what: Coercion | RelationCoercion | string) => {
    if (!coerced.includes(what)) coerced.push(what);
  };
  const taken = () =>
    coerced.length === 0
      ? undefined
      : ({
          status: 'warn',
          reason: `${coerced.join('; ')} (the service takes it so): ${show(value, 60)}`,
        } as const);
  if (field.relation) {
    const many = field.relation.cardinality === 'many-to-many';
    // What names no row: an object without an id (read as "[object Object]"), a nested list.
    const ids = relationTargets(many, value, note);
    if (ids.some((id) => id.startsWith('[object') || id.includes(',')))
      return fail(`${field.relation.cardinality} relation needs ids, got ${show(value, 60)}`);
    return taken();
  }
  if (field.subType && RANGE_SUBTYPES.has(field.subType)) return rangeFinding(field.subType, value);
  const conversion = conversionOf(field);
  if (conversion === 'files') {
    const list = Array.isArray(value) ? value : [value];
    const bad = list.find((v) => !(typeof v === 'string' || isPlainObject(v)));
    return bad === undefined ? undefined : fail(`files are URLs, found ${show(bad, 60)}`);
  }
  if (conversion === 'rich' || conversion === 'enum') {
    if (typeof value === 'string') return undefined;
    if (typeof value === 'number' || typeof value === 'boolean') {
      note('number or boolean sent for text');
      return taken();
    }
    return fail(`text needs a string, got ${show(value, 60)}`);
  }
  if (conversion === 'list') {
    // array[text] (and multi-select text) is read as a list of texts: a lone value or a number in it
    // is read as its text.
    if (field.type === 'array[text]' && !Array.isArray(value)) note('a single value sent for array[text]');
    if (Array.isArray(value) && value.some((v) => typeof v !== 'string' && !isPlainObject(v)))
      note('array[text] holding values that are not text');
    return taken();
  }
  if (convertValue(conversion, value, note) === undefined)
    return fail(
      `${field.type}${field.subType ? `/${field.subType}` : ''} needs ${NEEDS[conversion] ?? 'text'}, got ${show(value, 60)}: the service would store it empty`,
    );
  return taken();
}

/** The fail reason of `judgeValue`, or undefined when the value fits or only warns. */
export function valueProblem(field: FieldInfo, value: unknown): string | undefined {
  const finding = judgeValue(field, value);
  return finding?.status === 'fail' ? finding.reason : undefined;
}

/**
 * Date ranges go on the wire as a JSON *string* holding `{start, end}` (ISO 8601). An object
 * `{start, end}` only warns: it is what apps built on older weft versions send, and it holds the
 * same information; anything else fails.
 */
function rangeFinding(subType: string, value: unknown): ValueFinding | undefined {
  if (typeof value === 'string') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      return fail(`${subType} needs a JSON string such as ${RANGE_EXAMPLE}, got ${show(value, 60)}`);
    }
    return isRange(parsed)
      ? undefined
      : fail(`${subType} needs a JSON string of {start, end} ISO 8601 dates, got ${show(value, 60)}`);
  }
  if (isRange(value))
    return {
      status: 'warn',
      reason: `${subType} value is an object ${show(value, 60)}; the service takes a JSON string such as ${RANGE_EXAMPLE}`,
    };
  return fail(`${subType} needs {start, end} ISO 8601 dates as a JSON string, got ${show(value, 60)}`);
}

/** `{start, end}` with ISO dates; one side may be missing or null (an open range), not both. */
function isRange(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  const sides = [value.start, value.end];
  return sides.every((v) => v === undefined || v === null || isIsoDate(v)) && sides.some((v) => isIsoDate(v));
}

export function isIsoDate(value: unknown): boolean {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value) && !Number.isNaN(Date.parse(value));
}
