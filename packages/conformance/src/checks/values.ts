import { isPlainObject, show } from '../util.js';
import type { FieldInfo } from './schema.js';

/** Why a row value does not fit its field: `fail` when the service would refuse or lose it. */
export interface ValueFinding {
  status: 'fail' | 'warn';
  reason: string;
}

const fail = (reason: string): ValueFinding => ({ status: 'fail', reason });
const RANGE_SUBTYPES = new Set(['date-range', 'date-time-range']);
const RANGE_EXAMPLE = '"{\\"start\\":\\"2020-01-22\\",\\"end\\":\\"2020-08-19\\"}"';

/** How a value fits its field (type, subType, relation); undefined when it fits. */
export function judgeValue(field: FieldInfo, value: unknown): ValueFinding | undefined {
  if (value === null || value === undefined) return undefined;
  const scalarId = (v: unknown) => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
  if (field.relation) {
    if (field.relation.cardinality === 'many-to-many') {
      return Array.isArray(value) && value.every(scalarId)
        ? undefined
        : fail(`many-to-many relation needs an array of ids, got ${show(value, 60)}`);
    }
    return scalarId(value)
      ? undefined
      : fail(`${field.relation.cardinality} relation needs a single id, got ${show(value, 60)}`);
  }
  if (field.subType && RANGE_SUBTYPES.has(field.subType)) return rangeFinding(field.subType, value);
  switch (field.type) {
    case 'id':
      return scalarId(value) ? undefined : fail(`an id must be a string or number, got ${show(value, 60)}`);
    case 'text': {
      if (typeof value === 'string') return undefined;
      if (field.subType === 'boolean' && typeof value === 'boolean') return undefined;
      // `{longitude, latitude, fullAddress}`: the service also reads it as a JSON string; an
      // object is left alone because nothing shows that the service refuses it.
      if (field.subType === 'location' && isPlainObject(value)) return undefined;
      return fail(`text needs a string, got ${show(value, 60)}`);
    }
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value))
        return fail(`number needs a JSON number, got ${show(value, 60)}`);
      if (field.subType === 'integer' && !Number.isInteger(value))
        return fail(`integer needs a whole number, got ${value}`);
      return undefined;
    case 'date':
      return isIsoDate(value) ? undefined : fail(`date needs an ISO 8601 string, got ${show(value, 60)}`);
    case 'array[text]': {
      if (!Array.isArray(value)) return fail(`array[text] needs an array, got ${show(value, 60)}`);
      const files = field.subType === 'file' || field.subType === 'files';
      const bad = value.find((v) => !(typeof v === 'string' || (files && isPlainObject(v))));
      return bad === undefined ? undefined : fail(`array[text] needs strings, found ${show(bad, 60)}`);
    }
    default:
      return undefined;
  }
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
