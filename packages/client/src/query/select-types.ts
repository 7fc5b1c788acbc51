// Types of select lists and of the rows they produce.
import type { AnySchema, FieldRef, ManyRef, OneRef, TargetOf, ValueOf } from '../schema-types.js';
import type { Aggregate, ManySelect } from './query-object.js';

type Related<S, T> = string extends keyof S ? AnyRelated : KnownRelated<S, T>;

/** Without generated types: any key, any sub-select. */
type AnyRelated = { [field: string]: readonly SelectItem<AnySchema, string>[] | ManySelect | Aggregate };

type KnownRelated<S, T> = {
  [R in OneRef<S, T>]?: readonly SelectItem<S, TargetOf<S, T, R>>[];
} & {
  [R in ManyRef<S, T>]?: ManySelect<readonly SelectItem<S, TargetOf<S, T, R>>[]>;
};

/** One element of a select: a field, related fields, a collection sub-query, or aggregates. */
export type SelectItem<S, T> =
  | FieldRef<S, T>
  | (object & Related<S, T>)
  | (object & { [alias: string]: Aggregate });

type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void
  ? I
  : never;
type Simplify<X> = { [K in keyof X]: X[K] } & {};

type ItemRow<S, T, I> = I extends string
  ? { [K in I]: ValueOf<S, T, I> }
  : I extends object
    ? {
        -readonly [K in keyof I]: I[K] extends readonly unknown[]
          ? RowOf<S, TargetOf<S, T, K>, I[K]> | null
          : I[K] extends ManySelect<infer F>
            ? RowOf<S, TargetOf<S, T, K>, F>[]
            : I[K] extends Aggregate
              ? number | string | null
              : never;
      }
    : never;

/**
 * The row a select produces, keyed by the names as written in the select (the client renames
 * the service's full names back to them).
 */
export type RowOf<S, T, Items> = Items extends readonly unknown[]
  ? Simplify<
      UnionToIntersection<{ [I in keyof Items]: ItemRow<S, T, Items[I]> }[number]> & { 'svc/id': string }
    >
  : never;

/**
 * Rejects keys of select objects that are neither a relation of the type nor an aggregate alias
 * (a misspelled relation would otherwise pass as an alias).
 */
export type CheckSelect<S, T, Items> = string extends keyof S ? unknown : CheckKnown<S, T, Items>;

type CheckKnown<S, T, Items> = {
  [I in keyof Items]: Items[I] extends string
    ? Items[I]
    : {
        [K in keyof Items[I]]: K extends OneRef<S, T>
          ? Items[I][K]
          : K extends ManyRef<S, T>
            ? Items[I][K]
            : Items[I][K] extends Aggregate
              ? Items[I][K]
              : Aggregate;
      };
};
