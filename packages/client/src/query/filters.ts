// Filter expressions of the query object. Values never go into the query itself: each one is
// held here and becomes a `$p<n>` parameter when the query is compiled.

/** A path to a value: `'Name'`, `'Project.Name'`, or `start('Due')` for a date range's start. */
export type PathInput<P extends string = string> = P | StartOf<P>;

export interface StartOf<P extends string = string> {
  readonly op: 'q/start' | 'q/end';
  readonly path: P;
}

type Comparison = '=' | '!=' | '>' | '<' | '>=' | '<=' | 'q/in' | 'q/not-in' | 'q/contains' | 'q/starts-with';

export type Filter<P extends string = string> =
  | { readonly op: Comparison; readonly path: PathInput<P>; readonly value: unknown }
  | { readonly op: 'q/and' | 'q/or'; readonly filters: readonly Filter<P>[] }
  | { readonly op: 'q/not'; readonly filter: Filter<P> };

/** The start of a date-range field, to compare it: `gte(start('Due'), '2026-01-01')`. */
export function start<const P extends string>(path: P): StartOf<P> {
  return { op: 'q/start', path };
}
/** The end of a date-range field (`q/end`, an addition of the local workspace). */
export function end<const P extends string>(path: P): StartOf<P> {
  return { op: 'q/end', path };
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
// Beyond the operators the service documents (=, >, <, >=, q/in, q/and, q/start); the local
// workspace accepts them.
export function ne<const P extends string>(path: PathInput<P>, value: unknown): Filter<P> {
  return { op: '!=', path, value };
}
export function notIn<const P extends string>(path: PathInput<P>, values: readonly unknown[]): Filter<P> {
  return { op: 'q/not-in', path, value: values };
}
/** Text contains `text`, ignoring case. */
export function contains<const P extends string>(path: PathInput<P>, text: string): Filter<P> {
  return { op: 'q/contains', path, value: text };
}
/** Text starts with `text`, ignoring case. */
export function startsWith<const P extends string>(path: PathInput<P>, text: string): Filter<P> {
  return { op: 'q/starts-with', path, value: text };
}
export function not<const P extends string>(filter: Filter<P>): Filter<P> {
  return { op: 'q/not', filter };
}
/** `q/or`. */
export function or<const P extends string>(...filters: Filter<P>[]): Filter<P> {
  return { op: 'q/or', filters };
}
