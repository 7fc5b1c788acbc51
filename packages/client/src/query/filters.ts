// Filter expressions of the query object. Values never go into the query itself: each one is
// held here and becomes a `$p<n>` parameter when the query is compiled.

/** A path to a value: `'Name'`, `'Project.Name'`, or `start('Due')` for a date range's start. */
export type PathInput<P extends string = string> = P | StartOf<P>;

export interface StartOf<P extends string = string> {
  readonly op: 'q/start';
  readonly path: P;
}

export type Filter<P extends string = string> =
  | {
      readonly op: '=' | '>' | '<' | '>=' | '<=' | 'q/in';
      readonly path: PathInput<P>;
      readonly value: unknown;
    }
  | { readonly op: 'q/and' | 'q/or'; readonly filters: readonly Filter<P>[] };

/** The start of a date-range field, to compare it: `gte(start('Due'), '2026-01-01')`. */
export function start<const P extends string>(path: P): StartOf<P> {
  return { op: 'q/start', path };
}

export function eq<const P extends string>(path: PathInput<P>, value: unknown): Filter<P> {
  return { op: '=', path, value };
}
export function gt<const P extends string>(path: PathInput<P>, value: unknown): Filter<P> {
  return { op: '>', path, value };
}
export function lt<const P extends string>(path: PathInput<P>, value: unknown): Filter<P> {
  return { op: '<', path, value };
}
export function gte<const P extends string>(path: PathInput<P>, value: unknown): Filter<P> {
  return { op: '>=', path, value };
}
export function lte<const P extends string>(path: PathInput<P>, value: unknown): Filter<P> {
  return { op: '<=', path, value };
}
/** The value is one of `values` (`q/in`). */
export function isIn<const P extends string>(path: PathInput<P>, values: readonly unknown[]): Filter<P> {
  return { op: 'q/in', path, value: values };
}
export function and<const P extends string>(...filters: Filter<P>[]): Filter<P> {
  return { op: 'q/and', filters };
}
/** `q/or`: not among the operators the service documents; the local workspace accepts it. */
export function or<const P extends string>(...filters: Filter<P>[]): Filter<P> {
  return { op: 'q/or', filters };
}
