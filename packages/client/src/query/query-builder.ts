// An immutable, typed builder for the service's query object. Every method returns a new builder,
// so a base query can be shared and refined.
import type { AnySchema, PathRef } from '../schema-types.js';
import type { Filter, PathInput } from './filters.js';
import {
  type CompiledQuery,
  compilePath,
  compileSelect,
  compileWhere,
  NameResolver,
  type WireQuery,
} from './query-object.js';
import type { CheckSelect, RowOf, SelectItem } from './select-types.js';

export type RunQuery = (compiled: CompiledQuery, safeToRetry: boolean) => Promise<unknown[]>;

interface State {
  type: string;
  select: readonly unknown[];
  where: Filter[];
  order: [PathInput, 'asc' | 'desc'][];
  limit: number | 'all' | undefined;
  offset: number | undefined;
}

export class QueryBuilder<S = AnySchema, T extends string = string, Row = Record<string, unknown>> {
  readonly #state: State;
  readonly #run: RunQuery;

  constructor(run: RunQuery, type: T, state?: State) {
    this.#run = run;
    this.#state = state ?? { type, select: [], where: [], order: [], limit: undefined, offset: undefined };
  }

  #with(change: Partial<State>): any {
    return new QueryBuilder(this.#run, this.#state.type, { ...this.#state, ...change });
  }

  /** Fields to read: `'Name'`, `{ Project: ['Name'] }`, `{ Tags: many('Name') }`, `{ n: count('Tags') }`. */
  select<const Items extends readonly SelectItem<S, T>[]>(
    ...items: Items & CheckSelect<S, T, Items>
  ): QueryBuilder<S, T, RowOf<S, T, Items>> {
    return this.#with({ select: [...this.#state.select, ...items] });
  }

  /** Adds a filter (several calls are joined with `q/and`). */
  where(filter: Filter<PathRef<S, T>>): QueryBuilder<S, T, Row> {
    return this.#with({ where: [...this.#state.where, filter as Filter] });
  }

  orderBy(
    path: PathRef<S, T> | PathInput<PathRef<S, T>>,
    direction: 'asc' | 'desc' = 'asc',
  ): QueryBuilder<S, T, Row> {
    return this.#with({ order: [...this.#state.order, [path as PathInput, direction]] });
  }

  /** At most `n` rows; `'all'` for `q/no-limit`. */
  limit(n: number | 'all'): QueryBuilder<S, T, Row> {
    return this.#with({ limit: n });
  }

  offset(n: number): QueryBuilder<S, T, Row> {
    return this.#with({ offset: n });
  }

  /** The query object and its params, exactly as sent. */
  toQuery(): CompiledQuery {
    const names = new NameResolver(this.#state.type);
    const params: Record<string, unknown> = {};
    const select = compileSelect(this.#state.select, names);
    if (!select.includes('svc/id')) select.unshift('svc/id');
    const query: WireQuery = { 'q/from': this.#state.type, 'q/select': select };
    const where = this.#state.where;
    if (where.length === 1) query['q/where'] = compileWhere(where[0]!, names, params);
    else if (where.length > 1)
      query['q/where'] = compileWhere({ op: 'q/and', filters: where }, names, params);
    if (this.#state.order.length > 0) {
      query['q/order-by'] = this.#state.order.map(([path, dir]) => [
        compilePath(path, names),
        dir === 'asc' ? 'q/asc' : 'q/desc',
      ]) as WireQuery['q/order-by'];
    }
    if (this.#state.limit !== undefined)
      query['q/limit'] = this.#state.limit === 'all' ? 'q/no-limit' : this.#state.limit;
    if (this.#state.offset !== undefined) query['q/offset'] = this.#state.offset;
    return { query, params };
  }

  /** Runs the query once and returns its rows. */
  async all(): Promise<Row[]> {
    const rows = await this.#run(this.toQuery(), true);
    return rows.map((row) => renameRow(row, this.#state.select, new NameResolver(this.#state.type)) as Row);
  }

  /** The first row, or undefined. */
  async first(): Promise<Row | undefined> {
    const [row] = await this.limit(1).all();
    return row;
  }

  /**
   * Walks the whole result page by page with `q/offset`. The order is made stable by adding
   * `svc/id` as the last ordering key, so no row is seen twice or missed between pages (as long
   * as rows are not added or removed meanwhile).
   */
  async *pages(pageSize = 100): AsyncGenerator<Row[], void, undefined> {
    if (!Number.isInteger(pageSize) || pageSize < 1)
      throw new RangeError('pageSize must be a positive integer');
    let base: QueryBuilder<S, T, Row> = this;
    if (this.#state.order.length === 0) base = base.orderBy('svc/creation-date' as never);
    if (!this.#state.order.some(([p]) => p === 'svc/id')) base = base.orderBy('svc/id' as never);
    const total = typeof this.#state.limit === 'number' ? this.#state.limit : Number.POSITIVE_INFINITY;
    let offset = this.#state.offset ?? 0;
    let seen = 0;
    while (seen < total) {
      const size = Math.min(pageSize, total - seen);
      const page = await base.limit(size).offset(offset).all();
      if (page.length > 0) yield page;
      seen += page.length;
      offset += page.length;
      if (page.length < size) return;
    }
  }

  /** `for await (const row of query)`: every row, read in pages of 100. */
  async *[Symbol.asyncIterator](): AsyncGenerator<Row, void, undefined> {
    for await (const page of this.pages()) yield* page;
  }
}

/** Renames the service's full field names back to the names the select used. */
function renameRow(row: unknown, select: readonly unknown[], names: NameResolver): unknown {
  if (row === null || typeof row !== 'object') return row;
  const source = row as Record<string, unknown>;
  const out: Record<string, unknown> = { ...source };
  for (const item of select) {
    if (typeof item === 'string') move(out, names.field(item), item);
    else if (item && typeof item === 'object') {
      for (const [key, sub] of Object.entries(item)) {
        const full = names.field(key);
        if (Array.isArray(sub)) {
          out[full] = renameRow(out[full], sub, names);
          move(out, full, key);
        } else if (sub && typeof sub === 'object' && 'many' in sub) {
          const items = out[full];
          out[full] = Array.isArray(items)
            ? items.map((r) => renameRow(r, (sub as { many: unknown[] }).many, names))
            : items;
          move(out, full, key);
        }
      }
    }
  }
  return out;
}

function move(row: Record<string, unknown>, from: string, to: string): void {
  if (from === to || !(from in row)) return;
  row[to] = row[from];
  delete row[from];
}
