// Type-level view of a workspace schema. `weft-types` (or `generateTypes`) writes an interface of
// this shape for a real workspace; without one every name is a plain string and values unknown.

export type FieldKind = 'primitive' | 'entity' | 'collection' | 'document';

/** One field: what kind it is, the value a query returns for it, and where relations point. */
export interface FieldSpec {
  kind: FieldKind;
  value: unknown;
  /** What create and update accept (defaults to `value`). */
  input?: unknown;
  /** Related type of entity, single-select, collection and rich-text fields. */
  target?: string;
  readonly?: boolean;
}

export type SchemaSpec = { [type: string]: { [field: string]: FieldSpec } };

/** The schema when none was generated: any type, any field, any value. */
export interface AnySchema {
  [type: string]: { [field: string]: { kind: FieldKind; value: any; input: any; target: string } };
}

export type TypeName<S> = keyof S & string;
type Fields<S, T> = T extends keyof S ? S[T] : never;
export type FieldName<S, T> = keyof Fields<S, T> & string;
type AppOf<T> = T extends `${infer A}/${string}` ? A : never;

/** Short names: `Name` for `Tracker/Name` on a type of the `Tracker` app. */
type ShortName<S, T> = {
  [K in FieldName<S, T>]: K extends `${AppOf<T>}/${infer N}`
    ? N extends `${string}/${string}`
      ? never
      : N
    : never;
}[FieldName<S, T>];

/** A field written either in full (`Tracker/Name`, `svc/id`) or short (`Name`). */
export type FieldRef<S, T> = FieldName<S, T> | ShortName<S, T>;

/** The full name a field reference stands for. */
export type Resolve<S, T, R> =
  R extends FieldName<S, T>
    ? R
    : `${AppOf<T>}/${R & string}` extends FieldName<S, T>
      ? `${AppOf<T>}/${R & string}`
      : never;

export type SpecOf<S, T, R> = Fields<S, T>[Resolve<S, T, R> & keyof Fields<S, T>];
export type TargetOf<S, T, R> = SpecOf<S, T, R> extends { target: infer X extends string } ? X : never;
export type ValueOf<S, T, R> = SpecOf<S, T, R> extends { value: infer V } ? V : never;

type RefsOfKind<S, T, K extends FieldKind> = {
  [R in FieldRef<S, T>]: SpecOf<S, T, R> extends { kind: infer X } ? (K extends X ? R : never) : never;
}[FieldRef<S, T>];

/** Entity, single-select and rich-text fields (to-one). */
export type OneRef<S, T> = RefsOfKind<S, T, 'entity' | 'document'>;
export type ManyRef<S, T> = RefsOfKind<S, T, 'collection'>;

/** A filter or order path: `Name`, or `Project.Name` through a to-one field. */
export type PathRef<S, T> =
  | FieldRef<S, T>
  | { [R in OneRef<S, T>]: `${R & string}.${FieldRef<S, TargetOf<S, T, R>> & string}` }[OneRef<S, T>];

/** What create accepts: every writable, non-collection field, all optional. */
export type EntityInput<S, T> = {
  [K in FieldName<S, T> as Fields<S, T>[K] extends { kind: 'collection' | 'document' } | { readonly: true }
    ? never
    : K]?: Fields<S, T>[K] extends { input: infer I }
    ? I
    : Fields<S, T>[K] extends { value: infer V }
      ? V
      : never;
} & { 'svc/id'?: string };

/** An entity as create and update return it. */
export type EntityOutput<S, T> = {
  [K in FieldName<S, T> as Fields<S, T>[K] extends { kind: 'collection' | 'document' } ? never : K]: Fields<
    S,
    T
  >[K] extends { value: infer V }
    ? V
    : never;
};

export type Ref = { 'svc/id': string };
