import { clip } from '@weft/core/redact';
import { badRequest } from '../errors.js';
import type { TypeDef } from '../schema/catalog.js';
import type { Compiler } from './compile-query.js';
import { col } from './compile-query.js';
import { jsonObject } from './sql-builder.js';

// q/select as an object, the form the service's own clients send: `{<alias>: <what>}`, each
// result keyed by the aliases. <what> is
// - a field name: its value, as in the array form;
// - a path `[field, ...]` through to-one fields (entity, single-select, rich text): the value at
//   its end (`[rich text field, Collaboration~Documents/secret]` is the document's secret);
// - an aggregate `[q/count, [collection, field]]`, as in the array form;
// - a sub-query `{q/from: <collection field>, q/select, q/limit?, q/where?, q/order-by?}`: that
//   collection's items;
// - any other object: a nested object of aliases, read from the same entity.

const invalid = (message: string) => badRequest(message, 'invalid-query');
const shown = (value: unknown) => clip(JSON.stringify(value));
const AGGREGATES = new Set(['q/count', 'q/min', 'q/max', 'q/sum', 'q/avg']);

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The JSON object of an object-form q/select, for the entity `alias` of `type`. */
export function selectAliases(
  q: Compiler,
  type: TypeDef,
  alias: string,
  select: Record<string, unknown>,
): string {
  const pairs: Array<[string, string]> = [];
  for (const [key, spec] of Object.entries(select)) {
    q.b.spend();
    pairs.push([key, aliased(q, type, alias, key, spec)]);
  }
  return jsonObject(pairs, q.b);
}

function aliased(q: Compiler, type: TypeDef, alias: string, key: string, spec: unknown): string {
  if (typeof spec === 'string') return q.valueOf(type, alias, q.field(type, spec));
  if (Array.isArray(spec)) {
    if (typeof spec[0] === 'string' && AGGREGATES.has(spec[0]))
      return q.aggregate(type, alias, spec[0], spec[1]);
    return pathValue(q, type, alias, spec);
  }
  if (isObject(spec)) {
    if ('q/from' in spec) {
      const from =
        Array.isArray(spec['q/from']) && spec['q/from'].length === 1 ? spec['q/from'][0] : spec['q/from'];
      if (typeof from !== 'string')
        throw invalid(`q/from of a sub-query names one collection field, got ${shown(from)}`);
      const f = q.field(type, from);
      if (f.kind !== 'many')
        throw invalid(`q/from of a sub-query names a collection field; ${f.name} is not one`);
      const { 'q/from': _from, ...sub } = spec;
      return q.collectionQuery(alias, f, sub);
    }
    return q.nested(() => selectAliases(q, type, alias, spec));
  }
  throw invalid(`Invalid q/select entry ${shown(key)}: ${shown(spec)}`);
}

/** The value at the end of a path through to-one fields, one scalar sub-select per step. */
function pathValue(q: Compiler, type: TypeDef, alias: string, path: unknown[]): string {
  if (path.length === 0 || !path.every((p) => typeof p === 'string')) {
    throw invalid(`A field path is a non-empty list of field names, got ${shown(path)}`);
  }
  q.checkPath(path);
  return q.nested(() => step(q, type, alias, path as string[], 0));
}

function step(q: Compiler, type: TypeDef, alias: string, path: string[], i: number): string {
  const f = q.field(type, path[i]);
  if (i === path.length - 1) return q.valueOf(type, alias, f);
  if (f.kind !== 'one') {
    throw invalid(
      f.kind === 'many'
        ? `Path ${path.join(' → ')} goes through the collection ${f.name}: select it with a sub-query {q/from: ${f.name}, q/select}`
        : `Path ${path.join(' → ')}: ${f.name} is not a relation`,
    );
  }
  const target = q.catalog.target(f);
  const x = q.b.alias();
  return `(SELECT ${step(q, target, x, path, i + 1)} FROM ${target.table} ${x} WHERE ${x}.id = ${alias}.${col(f)})`;
}
