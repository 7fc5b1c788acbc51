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
// text, a many-to-many as a JSON string, a date range as an object or open on one side) warns, in
// the host's words.

/** Why a row value does not fit its field: `fail` when the service would refuse or lose it. */
export interface ValueFinding {
  status: 'fail' | 'warn';
  reason: string;
}

const fail = (reason: string): ValueFinding => ({ status: 'fail', reason });
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
  'date-range': `a JSON string of {start, end} ISO 8601 dates such as ${RANGE_EXAMPLE}`,
  'date-time-range': `a JSON string of {start, end} ISO 8601 dates such as ${RANGE_EXAMPLE}`,
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
  const conversion = conversionOf(field);
  if (conversion === 'files') {
    const list = Array.isArray(value) ? value : [value];
    const bad = list.find((v) => !(typeof v === 'string' || isPlainObject(v)));
    return bad === undefined ? undefined : fail(`files are URLs, found ${show(bad, 60)}`);
  }
  if (conversion === 'rich' || conversion === 'enum') {
    if (typeof value === 'string') return undefined;
    // A list of parts (array[text] as rich text) is one document.
    if (
      field.type === 'array[text]' &&
      Array.isArray(value) &&
      value.every((v) => typeof v === 'string' || v === null)
    )
      return undefined;
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
