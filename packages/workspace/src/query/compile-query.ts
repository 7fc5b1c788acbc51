import { assertFieldAccess, MY_ID, type Principal } from '../auth/principal.js';
import { clip } from '@weft/core/redact';
import { overBudget, type RequestBudgets } from '../commands/budgets.js';
import { badRequest } from '../errors.js';
import { closedHolders } from '../documents/document-access.js';
import type { Catalog, FieldDef, TypeDef } from '../schema/catalog.js';
import { filterValue, isUuid, outputExpr, paramCast, TEXT_TYPES } from '../schema/values.js';
import { selectAliases } from './select-object.js';
import { jsonObject, SqlBuilder } from './sql-builder.js';
import {
  barePath,
  COMPARISONS,
  compareFunction,
  functionOperand,
  isTextType,
  MEMBERSHIP,
  TEXT_OPERATORS,
  textComparison,
} from './where-functions.js';

// The query object compiled into ONE SQL statement: filters, paths through relations, ordering,
// paging, related sub-selects, collection sub-queries and aggregates all run in the database,
// which builds each result entity as JSON.

export const DEFAULT_LIMIT = 1000;

/**
 * A query (or sub-query) with its optional keys that are null left out: clients whose serializer
 * writes every field send `"q/where": null` for no filter (an Android client of the service does).
 */
function withoutNulls(q: Record<string, unknown>): Record<string, unknown> {
  let out = q;
  for (const k of ['q/where', 'q/order-by', 'q/limit', 'q/offset'])
    if (q[k] === null) {
      if (out === q) out = { ...q };
      delete out[k];
    }
  return out;
}
const AGGREGATES = new Set(['q/count', 'q/min', 'q/max', 'q/sum', 'q/avg']);
const JSON_TYPES = new Set(['svc/location', 'svc/json-value', 'svc/date-range', 'svc/date-time-range']);

const invalid = (message: string) => badRequest(message, 'invalid-query');
/** Operators clients write without their `q/` (see Compiler.whereExpr). */
const UNPREFIXED: Record<string, string> = { and: 'q/and', or: 'q/or', in: 'q/in' };
/** A value the caller sent, as an error message shows it: clipped, so it never echoes megabytes. */
const shown = (value: unknown) => clip(JSON.stringify(value));

export interface CompileOptions {
  catalog: Catalog;
  user: Principal;
  params?: Record<string, unknown> | undefined;
  /** a request's bounds on the statement (absent for in-process callers: no bounds) */
  budgets?:
    | Pick<RequestBudgets, 'maxQueryNodes' | 'maxPathLength' | 'maxResultRows' | 'maxTextFilters'>
    | undefined;
  /**
   * The schema token the catalog was loaded at: the statement then answers no row unless it is
   * still the database's (a catalog used without checking it first, see uncheckedQuery)
   */
  token?: string;
}

/** A compiled query; `cap` is set when q/no-limit was cut off: more rows than it are over budget. */
export interface CompiledQuery {
  sql: string;
  values: unknown[];
  cap?: number;
}

/** One FROM scope: a root table alias plus the LEFT JOINs its to-one paths need. */
export class Scope {
  readonly joins: string[] = [];
  private readonly joined = new Map<string, string>();
  constructor(
    readonly q: Compiler,
    readonly type: TypeDef,
    readonly alias: string,
  ) {}

  /** Alias of the entity reached from `alias` through the to-one field `field`. */
  joinOne(alias: string, field: FieldDef): string {
    const key = `${alias}.${field.id}`;
    const existing = this.joined.get(key);
    if (existing) return existing;
    const target = this.q.catalog.target(field);
    const a = this.q.b.alias();
    this.joins.push(`LEFT JOIN ${target.table} ${a} ON ${a}.id = ${alias}.${col(field)}`);
    this.joined.set(key, a);
    return a;
  }
}

export const col = (f: FieldDef): string => {
  if (f.storage.kind !== 'column') throw invalid(`Field ${f.name} is a collection`);
  return f.storage.col;
};

export class Compiler {
  readonly b: SqlBuilder;
  readonly catalog: Catalog;
  readonly user: Principal;
  private readonly params: Record<string, unknown>;
  private readonly budgets: CompileOptions['budgets'];
  private readonly token: string | undefined;

  constructor(options: CompileOptions) {
    this.catalog = options.catalog;
    this.user = options.user;
    this.params = options.params ?? {};
    this.budgets = options.budgets;
    this.token = options.token;
    const max = options.budgets?.maxQueryNodes;
    // Counted while the statement is built, so a huge query stops early instead of growing a huge
    // statement first.
    this.b = new SqlBuilder(
      max === undefined
        ? undefined
        : (nodes) => {
            if (nodes > max)
              throw overBudget(`The query has more than ${max} parts (maxQueryNodes): split it into several`);
          },
    );
  }

  /** Refuses a path longer than the budget allows, before any of it is looked up. */
  checkPath(path: readonly unknown[]): void {
    const max = this.budgets?.maxPathLength;
    if (max !== undefined && path.length > max)
      throw overBudget(`A field path has more than ${max} steps (maxPathLength)`);
  }

  field(type: TypeDef, name: unknown): FieldDef {
    const f = this.catalog.field(type, name);
    assertFieldAccess(this.user, type, f);
    return f;
  }

  /** FROM fragment and link condition of a collection field's items (alias `x`) seen from `holder`. */
  collectionSource(field: FieldDef, holder: string, x: string): { from: string; where: string } {
    const target = this.catalog.target(field);
    const s = field.storage;
    if (s.kind === 'join') {
      const j = this.b.alias();
      return {
        from: `${target.table} ${x} JOIN ${s.table} ${j} ON ${j}.${s.other} = ${x}.id`,
        where: `${j}.${s.self} = ${holder}.id`,
      };
    }
    if (s.kind === 'reverse') {
      const partner = this.catalog.fieldById(s.partner);
      if (!partner) throw invalid(`Field ${field.name} has lost its partner`);
      return { from: `${target.table} ${x}`, where: `${x}.${col(partner)} = ${holder}.id` };
    }
    throw invalid(`Field ${field.name} is not a collection`);
  }

  // ---- select ----

  selectObject(scope: Scope, type: TypeDef, alias: string, elements: unknown): string {
    return this.nested(() => this.selectElements(scope, type, alias, elements));
  }

  selectElements(_scope: Scope, type: TypeDef, alias: string, elements: unknown): string {
    // The object form {alias: field | [path] | {sub-select}}: select-object.ts.
    if (elements && typeof elements === 'object' && !Array.isArray(elements))
      return selectAliases(this, type, alias, elements as Record<string, unknown>);
    if (!Array.isArray(elements)) throw invalid('q/select must be an array or an object of aliases');
    const pairs: Array<[string, string]> = [];
    for (const el of elements) {
      this.b.spend();
      if (typeof el === 'string') {
        pairs.push([el, this.valueOf(type, alias, this.field(type, el))]);
      } else if (el && typeof el === 'object' && !Array.isArray(el)) {
        for (const [key, spec] of Object.entries(el))
          pairs.push([key, this.selectEntry(type, alias, key, spec)]);
      } else {
        throw invalid(`Invalid q/select element ${shown(el)}`);
      }
    }
    return jsonObject(pairs, this.b);
  }

  /** The JSON value of one field: primitives formatted, to-one as {svc/id}, collections as [{svc/id}]. */
  valueOf(_type: TypeDef, alias: string, f: FieldDef): string {
    if (f.kind === 'primitive') return outputExpr(f.fieldType, `${alias}.${col(f)}`);
    if (f.kind === 'one') {
      const c = `${alias}.${col(f)}`;
      return `CASE WHEN ${c} IS NULL THEN NULL ELSE json_build_object('svc/id', ${c}) END`;
    }
    const x = this.b.alias();
    const src = this.collectionSource(f, alias, x);
    return `(SELECT coalesce(json_agg(json_build_object('svc/id', ${x}.id) ORDER BY ${x}.created, ${x}.id), '[]'::json)
      FROM ${src.from} WHERE ${src.where})`;
  }

  selectEntry(type: TypeDef, alias: string, key: string, spec: unknown): string {
    if (Array.isArray(spec) && typeof spec[0] === 'string' && AGGREGATES.has(spec[0])) {
      return this.aggregate(type, alias, spec[0], spec[1]);
    }
    if (Array.isArray(spec) && typeof spec[0] === 'string' && spec[0].startsWith('q/')) {
      throw invalid(`Unknown aggregate ${spec[0]}`);
    }
    const f = this.field(type, key);
    if (f.kind === 'primitive') throw invalid(`Field ${key} is not a relation; select it by name`);
    const target = this.catalog.target(f);
    if (f.kind === 'one') {
      if (!Array.isArray(spec)) throw invalid(`{${key}: [...]} needs an array of field names`);
      const x = this.b.alias();
      const sub = new Scope(this, target, x);
      const obj = this.selectObject(sub, target, x, spec);
      return `(SELECT ${obj} FROM ${target.table} ${x} WHERE ${x}.id = ${alias}.${col(f)})`;
    }
    // A collection: [fields] or {q/select, q/limit?, q/offset?, q/where?, q/order-by?}.
    let sub: Record<string, unknown>;
    if (Array.isArray(spec)) sub = { 'q/select': spec };
    else if (spec && typeof spec === 'object') sub = spec as Record<string, unknown>;
    else throw invalid(`Invalid sub-query for collection ${key}`);
    return this.collectionQuery(alias, f, sub);
  }

  /** The items of the collection `f` of the entity `alias`, as a JSON array, per the sub-query `sub`. */
  collectionQuery(alias: string, f: FieldDef, spec: Record<string, unknown>): string {
    const sub = withoutNulls(spec);
    const limit = sub['q/limit'];
    if (
      limit !== undefined &&
      limit !== 'q/no-limit' &&
      (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 0)
    ) {
      throw invalid("A collection sub-query's q/limit is a non-negative integer or q/no-limit");
    }
    const offset = sub['q/offset'] ?? 0;
    if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0)
      throw invalid("A collection sub-query's q/offset is a non-negative integer");
    const target = this.catalog.target(f);
    const x = this.b.alias();
    const scope = new Scope(this, target, x);
    const src = this.collectionSource(f, alias, x);
    const obj = this.selectObject(scope, target, x, sub['q/select']);
    const where = sub['q/where'] === undefined ? 'TRUE' : this.where(scope, sub['q/where']);
    const keys = this.orderKeys(scope, sub['q/order-by']);
    const order = keys.map(([e, dir]) => `${e} ${dir}`).join(', ');
    const from = `FROM ${src.from} ${scope.joins.join(' ')} WHERE ${src.where} AND ${where}`;
    if (typeof limit !== 'number' && offset === 0) {
      return `(SELECT coalesce(json_agg(${obj} ORDER BY ${order}), '[]'::json) ${from})`;
    }
    // A page of the items in order (clients page a collection with q/offset and q/limit); their
    // sort keys come along so the array keeps that order.
    const p = this.b.alias();
    const sorts = keys.map(([e], i) => `${e} AS s${i}`).join(', ');
    const outer = keys.map(([, dir], i) => `${p}.s${i} ${dir}`).join(', ');
    const page = `${typeof limit === 'number' ? ` LIMIT ${limit}` : ''}${offset > 0 ? ` OFFSET ${offset}` : ''}`;
    return `(SELECT coalesce(json_agg(${p}.r ORDER BY ${outer}), '[]'::json)
      FROM (SELECT ${obj} AS r, ${sorts} ${from} ORDER BY ${order}${page}) ${p})`;
  }

  aggregate(type: TypeDef, alias: string, op: string, path: unknown): string {
    if (!Array.isArray(path) || path.length === 0 || !path.every((p) => typeof p === 'string')) {
      throw invalid(`${op} needs a path [<collection field>, <sub field>]`);
    }
    this.checkPath(path);
    const f = this.field(type, path[0]);
    if (f.kind !== 'many') throw invalid(`${op} applies to a collection field; ${f.name} is not one`);
    const target = this.catalog.target(f);
    const x = this.b.alias();
    const scope = new Scope(this, target, x);
    const src = this.collectionSource(f, alias, x);
    const rest = path.slice(1) as string[];
    if (op === 'q/count' && (rest.length === 0 || (rest.length === 1 && rest[0] === 'svc/id'))) {
      return `(SELECT count(*) FROM ${src.from} WHERE ${src.where})`;
    }
    if (rest.length === 0) throw invalid(`${op} needs a sub field: [${f.name}, <field>]`);
    const { expr, field } = this.scalarPath(scope, rest);
    const fromWithJoins = `FROM ${src.from} ${scope.joins.join(' ')}`;
    return `(SELECT ${aggregateOf(op, expr, field)} ${fromWithJoins} WHERE ${src.where})`;
  }

  /**
   * An object q/select whose aliases are all aggregates of the queried type's own fields
   * (`{n: [q/count, svc/id], total: [q/sum, x/amount]}`): one row over every entity the query
   * matches. Undefined for any other select; refused when such aggregates are mixed with fields.
   */
  wholeQuery(scope: Scope, select: unknown): string | undefined {
    if (!select || typeof select !== 'object' || Array.isArray(select)) return undefined;
    const entries = Object.entries(select as Record<string, unknown>);
    // The field an aggregate of the type's own field names: `"<field>"`, or `["<field>"]` when
    // that field is no collection (`[q/count, [<collection>]]` counts each entity's items).
    const own = (spec: unknown): string | undefined => {
      if (!Array.isArray(spec) || !AGGREGATES.has(spec[0] as string)) return undefined;
      const of = spec[1];
      if (typeof of === 'string') return of;
      if (!Array.isArray(of) || of.length !== 1 || typeof of[0] !== 'string') return undefined;
      return scope.type.byName.get(of[0])?.kind === 'many' ? undefined : of[0];
    };
    const fields = entries.map(([, spec]) => own(spec));
    if (fields.every((f) => f === undefined)) return undefined;
    if (fields.includes(undefined))
      throw invalid(
        'Aggregates of the queried type\'s own fields ([q/count, "<field>"]) sum up the whole query: every alias of such a q/select is one',
      );
    const pairs = entries.map(([key, spec], i): [string, string] => {
      this.b.spend();
      const op = (spec as string[])[0] as string;
      const f = this.field(scope.type, fields[i]);
      if (op === 'q/count' && f.name === 'svc/id') return [key, 'count(*)'];
      if (f.kind === 'many')
        throw invalid(`${op} of the collection ${f.name} goes by a path: [${op}, [${f.name}, <field>]]`);
      return [key, aggregateOf(op, `${scope.alias}.${col(f)}`, f)];
    });
    return jsonObject(pairs, this.b);
  }

  // ---- paths ----

  /** A path ending in a value, following to-one fields with joins. */
  scalarPath(scope: Scope, path: string[]): { expr: string; field: FieldDef; type: TypeDef } {
    this.checkPath(path);
    let type = scope.type;
    let alias = scope.alias;
    for (let i = 0; i < path.length; i++) {
      const f = this.field(type, path[i]);
      if (i === path.length - 1) {
        if (f.kind === 'many') throw invalid(`Path ${path.join(' → ')} ends in a collection`);
        return { expr: `${alias}.${col(f)}`, field: f, type };
      }
      if (f.kind !== 'one') {
        throw invalid(
          `Path ${path.join(' → ')}: ${f.name} is ${f.kind === 'many' ? 'a collection' : 'not a relation'}`,
        );
      }
      alias = scope.joinOne(alias, f);
      type = this.catalog.target(f);
    }
    throw invalid('A field path must not be empty');
  }

  // ---- where ----

  param(ref: unknown): unknown {
    // An inline null reads as a parameter holding null: scripts in the service compare
    // `[=, [field], null]` to find what is empty. Any other value goes through params.
    if (ref === null) return null;
    if (typeof ref !== 'string' || !ref.startsWith('$')) {
      throw invalid(
        `Comparison values must be passed through params: use a "$name" reference, not the inline value ${shown(ref)}`,
      );
    }
    if (Object.hasOwn(this.params, ref)) return this.params[ref];
    const bare = ref.slice(1);
    if (Object.hasOwn(this.params, bare)) return this.params[bare];
    // The service's own parameter: the id of the user asking, unless the caller gave one.
    if (ref === MY_ID) return this.user.id;
    throw invalid(`Parameter ${ref} is not in params`);
  }

  private depth = 0;
  /** q/contains and q/starts-with so far: each reads the text of every row it looks at */
  private textFilters = 0;

  /** Nesting guard: deeply nested filters or sub-selects are refused, not a stack overflow. */
  nested<T>(fn: () => T): T {
    this.b.spend();
    if (++this.depth > 32) throw invalid('The query nests more than 32 levels deep');
    try {
      return fn();
    } finally {
      this.depth--;
    }
  }

  where(scope: Scope, expr: unknown): string {
    return this.nested(() => this.whereExpr(scope, expr));
  }

  /**
   * Operators written without their `q/`: the service's own UI and a bot send `[and, …]`, a sync
   * script `[in, [field], $ids]`.
   */
  whereExpr(scope: Scope, expr: unknown): string {
    if (!Array.isArray(expr) || expr.length === 0 || typeof expr[0] !== 'string') {
      throw invalid(`Invalid q/where expression ${shown(expr)}`);
    }
    const [written, ...args] = expr;
    const op = UNPREFIXED[written] ?? written;
    if (op === 'q/and' || op === 'q/or') {
      if (args.length === 0) return op === 'q/and' ? 'TRUE' : 'FALSE';
      return `(${args.map((a) => this.where(scope, a)).join(op === 'q/and' ? ' AND ' : ' OR ')})`;
    }
    if (op === 'q/not') {
      if (args.length !== 1) throw invalid('q/not takes one expression');
      return `NOT COALESCE(${this.where(scope, args[0])}, FALSE)`;
    }
    if (args.length !== 2) throw invalid(`${op} takes a field path and a parameter`);
    return this.comparison(scope, op, args[0], this.param(args[1]));
  }

  comparison(scope: Scope, op: string, written: unknown, value: unknown): string {
    // A field named on its own stands for the path of that one field: clients of the service send
    // `[=, "fibery/id", "$id"]` and read its rows (see barePath).
    const operand = barePath(written);
    // [q/null?, path], [q/null-or-empty?, path], [q/count, path]: where-functions.ts.
    if (functionOperand(operand)) return compareFunction(this, scope, op, operand as unknown[], value);
    // Ranges: [q/start, [path]] or [q/end, [path]].
    let part: 'start' | 'end' | undefined;
    let path = operand;
    if (
      Array.isArray(operand) &&
      (operand[0] === 'q/start' || operand[0] === 'q/end') &&
      Array.isArray(operand[1])
    ) {
      part = operand[0] === 'q/start' ? 'start' : 'end';
      path = operand[1];
    }
    if (!Array.isArray(path) || path.length === 0 || !path.every((p) => typeof p === 'string')) {
      throw invalid(`A field path is a non-empty list of field names, got ${shown(operand)}`);
    }
    const names = path as string[];
    this.checkPath(names);
    // Through a collection: true when some item matches the rest of the path.
    let type = scope.type;
    let alias = scope.alias;
    for (let i = 0; i < names.length; i++) {
      const f = this.field(type, names[i]);
      if (f.kind === 'many') {
        const x = this.b.alias();
        const src = this.collectionSource(f, alias, x);
        const target = this.catalog.target(f);
        const rest = names.slice(i + 1);
        if (rest.length === 0) {
          // [collection] compared with ids: contains / in.
          return this.collectionMembership(op, src, x, value);
        }
        const sub = new Scope(this, target, x);
        const membership = part ? undefined : MEMBERSHIP[op];
        const holds = membership !== undefined && !this.endsInText(target, rest);
        const inner = this.comparison(sub, holds ? '=' : op, part ? [`q/${part}`, rest] : rest, value);
        const exists = `EXISTS (SELECT 1 FROM ${src.from} ${sub.joins.join(' ')} WHERE ${src.where} AND ${inner})`;
        return holds && membership === 'lacks' ? `NOT ${exists}` : exists;
      }
      if (i < names.length - 1) {
        if (f.kind !== 'one') throw invalid(`Path ${names.join(' → ')}: ${f.name} is not a relation`);
        alias = scope.joinOne(alias, f);
        type = this.catalog.target(f);
      }
    }
    const { expr, field } = this.scalarPath(scope, names);
    let t = field.kind === 'primitive' ? field.fieldType : 'svc/uuid';
    let e = expr;
    if (part) {
      if (t !== 'svc/date-range' && t !== 'svc/date-time-range') {
        throw invalid(`q/${part} applies to a date range; ${field.name} is ${t}`);
      }
      t = t === 'svc/date-range' ? 'svc/date' : 'svc/date-time';
      e = `(${expr}->>'${part}')::${paramCast(t)}`;
    }
    const coerce = (v: unknown) => {
      if (field.kind !== 'primitive') {
        const id =
          v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>)['svc/id'] : v;
        if (!isUuid(id)) throw invalid(`${field.name} is compared with entity ids; got ${shown(v)}`);
        return id;
      }
      try {
        return filterValue(field.name, t, v);
      } catch (error) {
        throw invalid((error as Error).message);
      }
    };
    const cast = paramCast(t);
    const cmp = COMPARISONS[op];
    if (cmp) {
      if (value === null) {
        if (op === '=') return `${e} IS NULL`;
        if (op === '!=') return `${e} IS NOT NULL`;
        throw invalid(`${op} cannot compare with null`);
      }
      if (JSON_TYPES.has(t) && op !== '=' && op !== '!=')
        throw invalid(`${op} does not apply to ${t} fields`);
      const p = this.b.bind(coerce(value), cast);
      if (op === '!=') return `${e} IS DISTINCT FROM ${p}`;
      return `${e} ${cmp} ${p}`;
    }
    if (op === 'q/in' || op === 'q/not-in') {
      if (!Array.isArray(value)) throw invalid(`${op} needs an array parameter`);
      const p = this.b.bind(value.map(coerce), `${cast}[]`);
      return op === 'q/in' ? `${e} = ANY(${p})` : `(${e} IS NULL OR ${e} <> ALL(${p}))`;
    }
    if (op === 'q/contains' || op === 'q/starts-with') {
      if (!TEXT_TYPES.has(t)) throw invalid(`${op} applies to text fields`);
      if (typeof value !== 'string') throw invalid(`${op} needs a string parameter`);
      this.countTextFilter();
      const p = this.b.bind(value.replaceAll('\0', ''), 'text');
      return op === 'q/contains'
        ? `strpos(lower(${e}), lower(${p})) > 0`
        : `starts_with(lower(${e}), lower(${p}))`;
    }
    if (TEXT_OPERATORS.has(op)) return textComparison(this, op, e, t, value);
    throw invalid(`Unknown operator ${shown(op)}`);
  }

  /** Whether the path `names` from `type` ends at a text field (through to-one fields). */
  endsInText(type: TypeDef, names: string[]): boolean {
    let at = type;
    for (const [i, name] of names.entries()) {
      const f = this.field(at, name);
      if (i === names.length - 1) return f.kind === 'primitive' && isTextType(f.fieldType);
      if (f.kind !== 'one') return true; // another collection: the comparison decides there
      at = this.catalog.target(f);
    }
    return true;
  }

  /** One more filter that reads the text of every row it looks at (q/contains and the like). */
  countTextFilter(): void {
    const max = this.budgets?.maxTextFilters;
    if (max !== undefined && ++this.textFilters > max)
      throw overBudget(
        `The query has more than ${max} q/contains and q/starts-with filters (maxTextFilters)`,
      );
  }

  collectionMembership(op: string, src: { from: string; where: string }, x: string, value: unknown): string {
    const ids = (Array.isArray(value) ? value : [value]).map((v) => {
      const id = v && typeof v === 'object' ? (v as Record<string, unknown>)['svc/id'] : v;
      if (!isUuid(id)) throw invalid(`A collection is compared with entity ids; got ${shown(v)}`);
      return id;
    });
    const exists = (p: string) =>
      `EXISTS (SELECT 1 FROM ${src.from} WHERE ${src.where} AND ${x}.id = ANY(${p}))`;
    if (op === 'q/contains' || op === 'q/in' || op === '=') return exists(this.b.bind(ids, 'uuid[]'));
    if (op === 'q/not-in' || op === '!=' || MEMBERSHIP[op] === 'lacks')
      return `NOT ${exists(this.b.bind(ids, 'uuid[]'))}`;
    throw invalid(`${op} does not apply to a collection`);
  }

  // ---- order ----

  orderBy(scope: Scope, spec: unknown): string {
    return this.orderKeys(scope, spec)
      .map(([e, dir]) => `${e} ${dir}`)
      .join(', ');
  }

  /** The ORDER BY keys: expression and direction, ending with the id that breaks ties. */
  orderKeys(scope: Scope, spec: unknown): Array<[string, 'ASC' | 'DESC']> {
    const base: Array<[string, 'ASC' | 'DESC']> = [
      [`${scope.alias}.created`, 'ASC'],
      [`${scope.alias}.id`, 'ASC'],
    ];
    if (spec === undefined || spec === null) return base;
    if (!Array.isArray(spec)) throw invalid('q/order-by must be an array of [[path], q/asc|q/desc]');
    const parts: Array<[string, 'ASC' | 'DESC']> = [];
    for (const item of spec) {
      this.b.spend();
      if (!Array.isArray(item) || item.length < 1 || item.length > 2) {
        throw invalid(`Invalid q/order-by item ${shown(item)}`);
      }
      const dir = item[1] ?? 'q/asc';
      if (dir !== 'q/asc' && dir !== 'q/desc')
        throw invalid(`Order must be q/asc or q/desc, got ${shown(dir)}`);
      let path = item[0];
      let part: string | undefined;
      if (Array.isArray(path) && (path[0] === 'q/start' || path[0] === 'q/end') && Array.isArray(path[1])) {
        part = path[0].slice(2);
        path = path[1];
      }
      if (typeof path === 'string') path = [path];
      if (!Array.isArray(path) || path.length === 0 || !path.every((p) => typeof p === 'string')) {
        throw invalid(`Invalid q/order-by path ${shown(item[0])}`);
      }
      const { expr, field } = this.scalarPath(scope, path as string[]);
      const e = part ? `(${expr}->>'${part}')` : expr;
      if (!part && (field.fieldType === 'svc/location' || field.fieldType === 'svc/json-value')) {
        throw invalid(`Cannot order by ${field.name}`);
      }
      parts.push([e, dir === 'q/asc' ? 'ASC' : 'DESC']);
    }
    parts.push([`${scope.alias}.id`, 'ASC']);
    return parts;
  }

  // ---- the statement ----

  compile(query: unknown): CompiledQuery {
    if (!query || typeof query !== 'object' || Array.isArray(query)) throw invalid('query must be an object');
    // A key the query language does not have is ignored, as the service ignores it (an MCP server
    // for it sends `q/order` beside `q/limit` in every search, and gets its rows).
    const q = withoutNulls(query as Record<string, unknown>);
    const type = this.catalog.type(q['q/from']);
    if (q['q/select'] === undefined) throw invalid('q/select is required');
    const root = this.b.alias();
    const scope = new Scope(this, type, root);
    const totals = this.nested(() => this.wholeQuery(scope, q['q/select']));
    const obj = totals ?? this.selectObject(scope, type, root, q['q/select']);
    const conditions = q['q/where'] === undefined ? [] : [this.where(scope, q['q/where'])];
    // Documents, comments and files read directly: those held by a field closed to this user stay hidden.
    const closed = closedHolders(this.catalog, this.user, type, root);
    if (closed.length > 0) conditions.push(`NOT (${closed.join(' OR ')})`);
    const guard = this.token === undefined ? undefined : schemaGuard(this.b.bind(this.token, 'text'));
    // Aggregates over the whole query answer a row even over no entity: their guard is a HAVING.
    if (guard && !totals) conditions.push(guard);
    const where = conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`;
    const keys = this.orderKeys(scope, q['q/order-by']);
    const order = keys.map(([e, dir]) => `${e} ${dir}`).join(', ');
    const limit = q['q/limit'] ?? DEFAULT_LIMIT;
    const maxRows = this.budgets?.maxResultRows;
    let paging = '';
    if (limit !== 'q/no-limit') {
      if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 0) {
        throw invalid('q/limit must be a non-negative integer or q/no-limit');
      }
      if (maxRows !== undefined && limit > maxRows)
        throw overBudget(
          `q/limit is above ${maxRows} rows (maxResultRows): read in pages of q/limit and q/offset`,
        );
      paging = `LIMIT ${limit}`;
    } else if (maxRows !== undefined) {
      // One row more than the budget tells an answer that would be too long from one that fits.
      paging = `LIMIT ${maxRows + 1}`;
    }
    const offset = q['q/offset'];
    if (offset !== undefined) {
      if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0) {
        throw invalid('q/offset must be a non-negative integer');
      }
      paging += ` OFFSET ${offset}`;
    }
    const from = `${type.table} ${root} ${scope.joins.join(' ')} ${where}`;
    // Aggregates over the whole query: one row, with nothing to order or cut.
    if (totals)
      return {
        sql: `SELECT ${obj} AS r FROM ${from}${guard ? ` HAVING ${guard}` : ''}`,
        values: this.b.values,
      };
    if (limit === 'q/no-limit') {
      return {
        sql: `SELECT ${obj} AS r FROM ${from} ORDER BY ${order} ${paging}`,
        values: this.b.values,
        ...(maxRows !== undefined ? { cap: maxRows } : {}),
      };
    }
    // A page: Postgres would build the JSON of every matching row before sorting and cutting the
    // page (a million objects for a page of 100); so the page's ids and sort keys are chosen first,
    // and only its rows are built.
    const page = this.b.alias();
    const sortCols = keys.map(([e], i) => `${e} AS s${i}`).join(', ');
    const outerOrder = keys.map(([, dir], i) => `${page}.s${i} ${dir}`).join(', ');
    const sql = `SELECT ${obj} AS r FROM (SELECT ${root}.id AS id, ${sortCols} FROM ${from} ORDER BY ${order} ${paging}) ${page}
      JOIN ${type.table} ${root} ON ${root}.id = ${page}.id ORDER BY ${outerOrder}`;
    return { sql, values: this.b.values };
  }
}

/** True while the schema token is still `token` (a bound parameter). */
const schemaGuard = (token: string) =>
  `EXISTS (SELECT 1 FROM svc_meta WHERE key = 'schema_token' AND value = ${token})`;

/** The SQL of one aggregate over `expr`, the values of `field` (a primitive's, or a to-one's key). */
function aggregateOf(op: string, expr: string, field: FieldDef): string {
  const t = field.kind === 'primitive' ? field.fieldType : 'svc/uuid';
  if (op === 'q/count') return `count(${expr})`;
  if (field.kind !== 'primitive') throw invalid(`${op} cannot aggregate the relation ${field.name}`);
  if (JSON_TYPES.has(t)) throw invalid(`${op} cannot aggregate ${field.name}`);
  const numeric = t === 'svc/int' || t === 'svc/rank' || t === 'svc/decimal';
  if ((op === 'q/sum' || op === 'q/avg') && !numeric)
    throw invalid(`${op} needs a number field; ${field.name} is not`);
  if (t === 'svc/bool' && (op === 'q/min' || op === 'q/max'))
    return `${op === 'q/min' ? 'bool_and' : 'bool_or'}(${expr})`;
  const value = `${op.slice(2)}(${expr})`;
  if (op === 'q/sum' || op === 'q/avg')
    return t === 'svc/decimal' ? `(${value})::text` : `(${value})::float8`;
  return outputExpr(t, value);
}

export function compileQuery(options: CompileOptions, query: unknown): CompiledQuery {
  return new Compiler(options).compile(query);
}
