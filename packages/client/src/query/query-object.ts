// The wire shape of a query (the service's query object) and how builder input compiles to it.
import type { Filter, PathInput } from './filters.js';

export type WireQuery = {
  'q/from': string;
  'q/select': unknown[];
  'q/where'?: unknown[];
  'q/order-by'?: [string[], 'q/asc' | 'q/desc'][];
  'q/limit'?: number | 'q/no-limit';
  'q/offset'?: number;
};

export interface CompiledQuery {
  query: WireQuery;
  params: Record<string, unknown>;
}

/** A collection sub-query in a select: `{ Tags: many('Name') }`. */
export interface ManySelect<F extends readonly unknown[] = readonly unknown[]> {
  readonly many: F;
}
/** An aggregate over a collection in a select: `{ open: count('Tasks') }`. */
export interface Aggregate {
  readonly aggregate: 'q/count' | 'q/min' | 'q/max' | 'q/sum';
  readonly field: string;
  readonly sub?: string;
}

export function many<const F extends readonly unknown[]>(...fields: F): ManySelect<F> {
  return { many: fields };
}
export function count(collection: string): Aggregate {
  return { aggregate: 'q/count', field: collection };
}
export function min(collection: string, field: string): Aggregate {
  return { aggregate: 'q/min', field: collection, sub: field };
}

/** Resolves names against the queried type: `Name` on `Tracker/Task` is `Tracker/Name`. */
export class NameResolver {
  constructor(readonly type: string) {}

  field(name: string, holder: string = this.type): string {
    if (name.includes('/')) return name;
    const slash = holder.indexOf('/');
    if (slash < 0) return name;
    return `${holder.slice(0, slash)}/${name}`;
  }

  /** `Project.Name` → `['Tracker/Project', 'Tracker/Name']`. A related field's short name takes
   * the app of the queried type too, since the related type is not known at run time. */
  path(path: string): string[] {
    return path.split('.').map((part) => this.field(part));
  }
}

export function compileSelect(items: readonly unknown[], names: NameResolver): unknown[] {
  return items.map((item) => {
    if (typeof item === 'string') return names.field(item);
    if (item === null || typeof item !== 'object')
      throw new TypeError(`invalid select element ${String(item)}`);
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(item)) {
      if (Array.isArray(value)) out[names.field(key)] = compileSelect(value, names);
      else if (isMany(value)) {
        out[names.field(key)] = { 'q/select': compileSelect(value.many, names), 'q/limit': 'q/no-limit' };
      } else if (isAggregate(value)) {
        const path = [names.field(value.field)];
        if (value.sub !== undefined) path.push(names.field(value.sub));
        out[key] = [value.aggregate, path];
      } else throw new TypeError(`invalid select element for ${key}`);
    }
    return out;
  });
}

export function compileWhere(
  filter: Filter,
  names: NameResolver,
  params: Record<string, unknown>,
): unknown[] {
  if ('filters' in filter) return [filter.op, ...filter.filters.map((f) => compileWhere(f, names, params))];
  if ('filter' in filter) return [filter.op, compileWhere(filter.filter, names, params)];
  const name = `$p${Object.keys(params).length}`;
  params[name] = filter.value;
  return [filter.op, compilePath(filter.path, names), name];
}

export function compilePath(path: PathInput, names: NameResolver): unknown[] {
  if (typeof path === 'string') return names.path(path);
  return [path.op, names.path(path.path)];
}

function isMany(value: unknown): value is ManySelect {
  return typeof value === 'object' && value !== null && 'many' in value;
}
function isAggregate(value: unknown): value is Aggregate {
  return typeof value === 'object' && value !== null && 'aggregate' in value;
}
