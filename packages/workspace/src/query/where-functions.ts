import { clip } from '@weft/core/redact';
import { badRequest } from '../errors.js';
import { TEXT_TYPES } from '../schema/values.js';
import type { Compiler, Scope } from './compile-query.js';

// Filters the service's n8n node sends beyond the spec's operators:
// - function operands compared with a parameter: `[=, [q/null?, <path>], $p]` and
//   `[=, [q/null-or-empty?, <path>], $p]` with a boolean, `[<op>, [q/count, [<collection>, …]], $p]`
//   with a number (`<path>` may be `[q/start|q/end, [<range field>]]`);
// - text comparisons that ignore case: q/equals-ignoring-case?, q/not-equals-ignoring-case?,
//   q/starts-with-ignoring-case?, q/ends-with-ignoring-case?, and q/not-contains (the node spells
//   it q/does_not_contain: both are taken); and q/contains-ignoring-case?, which other clients
//   send (q/contains ignores case already).

const invalid = (message: string) => badRequest(message, 'invalid-query');
const shown = (value: unknown) => clip(JSON.stringify(value));
/** The query language's comparison operators and their SQL. */
export const COMPARISONS: Record<string, string> = {
  '=': '=',
  '!=': '<>',
  '<': '<',
  '>': '>',
  '<=': '<=',
  '>=': '>=',
};
const NULL_TESTS = new Set(['q/null?', 'q/null-or-empty?']);
/** A primitive type the text operators (q/contains and the like) apply to. */
export const isTextType = (t: string): boolean => TEXT_TYPES.has(t);
/**
 * q/contains and q/not-contains through a collection to a field that is not text (`[coll, id]`):
 * whether the collection holds an item with that value, as clients write "has this tag" and the
 * service answers it.
 */
export const MEMBERSHIP: Record<string, 'holds' | 'lacks'> = {
  'q/contains': 'holds',
  'q/not-contains': 'lacks',
  'q/does_not_contain': 'lacks',
};

/**
 * A comparison's operand as a path: a field name written on its own (not a `$` parameter) is the
 * path of that one field. The service takes `[=, "fibery/id", "$id"]`: a TypeScript client's
 * suite against a real workspace, and scripts whose comments show its real answer, send it.
 */
export function barePath(operand: unknown): unknown {
  return typeof operand === 'string' && operand !== '' && !operand.startsWith('$') ? [operand] : operand;
}

/** `[q/null?|q/null-or-empty?|q/count, …]` as an operand, else undefined. */
export function functionOperand(operand: unknown): string | undefined {
  if (!Array.isArray(operand) || typeof operand[0] !== 'string' || !Array.isArray(operand[1]))
    return undefined;
  return NULL_TESTS.has(operand[0]) || operand[0] === 'q/count' ? operand[0] : undefined;
}

/** A comparison whose operand is a function of a path (see functionOperand). */
export function compareFunction(
  q: Compiler,
  scope: Scope,
  op: string,
  operand: unknown[],
  value: unknown,
): string {
  const fn = operand[0] as string;
  if (fn === 'q/count') {
    const cmp = COMPARISONS[op];
    if (!cmp) throw invalid(`${op} does not compare a q/count`);
    if (typeof value !== 'number' || !Number.isSafeInteger(value))
      throw invalid(`q/count is compared with a whole number, got ${shown(value)}`);
    return `${q.aggregate(scope.type, scope.alias, 'q/count', operand[1])} ${cmp} ${q.b.bind(value, 'int8')}`;
  }
  if (op !== '=' && op !== '!=') throw invalid(`${fn} is compared with = or !=`);
  if (typeof value !== 'boolean') throw invalid(`${fn} is compared with true or false, got ${shown(value)}`);
  const test = nullTest(q, scope, fn === 'q/null-or-empty?', operand[1] as unknown[]);
  return (op === '=') === value ? test : `NOT ${test}`;
}

function nullTest(q: Compiler, scope: Scope, orEmpty: boolean, operand: unknown[]): string {
  let path: unknown = operand;
  let part: string | undefined;
  if ((operand[0] === 'q/start' || operand[0] === 'q/end') && Array.isArray(operand[1])) {
    part = operand[0].slice(2);
    path = operand[1];
  }
  if (!Array.isArray(path) || path.length === 0 || !path.every((p) => typeof p === 'string'))
    throw invalid(`A field path is a non-empty list of field names, got ${shown(operand)}`);
  const names = path as string[];
  const last = names.length === 1 ? q.field(scope.type, names[0]) : undefined;
  // A collection: empty when it has no item.
  if (last?.kind === 'many') {
    const x = q.b.alias();
    const src = q.collectionSource(last, scope.alias, x);
    return `(NOT EXISTS (SELECT 1 FROM ${src.from} WHERE ${src.where}))`;
  }
  const { expr, field } = q.scalarPath(scope, names);
  const e = part ? `(${expr}->>'${part}')` : expr;
  const t = field.kind === 'primitive' ? field.fieldType : 'svc/uuid';
  if (orEmpty && TEXT_TYPES.has(t) && !part) return `(${e} IS NULL OR ${e} = '')`;
  return `(${e} IS NULL)`;
}

export const TEXT_OPERATORS = new Set([
  'q/equals-ignoring-case?',
  'q/not-equals-ignoring-case?',
  'q/starts-with-ignoring-case?',
  'q/ends-with-ignoring-case?',
  'q/contains-ignoring-case?',
  'q/not-contains',
  'q/does_not_contain',
]);

/** A text operator (TEXT_OPERATORS) on the text expression `e`, counted against maxTextFilters. */
export function textComparison(q: Compiler, op: string, e: string, t: string, value: unknown): string {
  if (!TEXT_TYPES.has(t)) throw invalid(`${op} applies to text fields`);
  if (typeof value !== 'string') throw invalid(`${op} needs a string parameter`);
  q.countTextFilter();
  const p = `lower(${q.b.bind(value.replaceAll('\0', ''), 'text')})`;
  const v = `lower(${e})`;
  switch (op) {
    case 'q/equals-ignoring-case?':
      return `${v} = ${p}`;
    case 'q/not-equals-ignoring-case?':
      return `(${e} IS NULL OR ${v} <> ${p})`;
    case 'q/starts-with-ignoring-case?':
      return `starts_with(${v}, ${p})`;
    case 'q/ends-with-ignoring-case?':
      return `right(${v}, length(${p})) = ${p}`;
    case 'q/contains-ignoring-case?':
      return `strpos(${v}, ${p}) > 0`;
    default:
      return `(${e} IS NULL OR strpos(${v}, ${p}) = 0)`;
  }
}
