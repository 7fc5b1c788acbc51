import type { AuthenticationField, FieldType } from '../protocol/index.js';

/** The value shape the service sends for a filter of type `date`: a parsed date-range. */
export interface DateRangeValue {
  _min?: string;
  _max?: string;
}

/**
 * A form field of an account or a filter (spec section 2, "Field types"). `V` is the value
 * handlers receive; `O` records whether it is optional, so the inferred account and filter
 * types mark it `?`.
 */
export interface InputField<V, O extends boolean = boolean> {
  readonly type: FieldType;
  readonly name: string;
  readonly description?: string;
  readonly optional: O;
  /** Filters only: values cannot be changed by a non-owner. */
  readonly secured?: boolean;
  /** The value is a credential (e.g. a webhook address): redacted from logs and errors. */
  readonly secret?: boolean;
  /** For `link`: the link; otherwise a default value. */
  readonly value?: string;
  readonly editorMode?: 'json' | 'sql';
  /** For `list` and `multidropdown`: values come from the app's datalist handler. */
  readonly datalist?: boolean;
  /** Filter ids this list depends on; their values arrive as `dependsOn`. */
  readonly datalistRequires?: readonly string[];
  /** Filters only: the value the filter starts with (config `defaultValue`). */
  readonly defaultValue?: V;
  /** Phantom: the value type, for inference only. */
  readonly __value?: V;
}

export interface InputOptions {
  /** Label shown in the form. */
  name: string;
  description?: string;
  /** Filters only: values cannot be changed by a non-owner. */
  secured?: boolean;
  /**
   * Accounts only: the value is a credential although it is not a password field (a webhook
   * address, a connection string): redacted from logs and errors like a password.
   */
  secret?: boolean;
}

interface DefaultValueOption<V> {
  /** Filters only: the value the filter starts with (sent as `defaultValue` in the config). */
  defaultValue?: V;
}

interface InputBuilder<V, Extra = object> {
  (options: InputOptions & DefaultValueOption<V> & Extra & { optional: true }): InputField<V, true>;
  (options: InputOptions & DefaultValueOption<V> & Extra & { optional?: false }): InputField<V, false>;
  /** Optional decided at run time (account-dependent filters): typed as required. */
  (options: InputOptions & DefaultValueOption<V> & Extra & { optional: boolean }): InputField<V, boolean>;
}

interface ListExtra {
  /** Fetch the values from the app's datalist handler. */
  datalist?: boolean;
  /** Filter ids whose values this list needs (sent as `dependsOn`). */
  dependsOn?: readonly string[];
}

function builder<V, Extra = object>(
  type: FieldType,
  extra: (options: Extra) => Omit<Partial<InputField<V>>, '__value'> = () => ({}),
): InputBuilder<V, Extra> {
  return ((options: InputOptions & DefaultValueOption<V> & Extra & { optional?: boolean }) => ({
    type,
    name: options.name,
    ...(options.description === undefined ? {} : { description: options.description }),
    ...(options.defaultValue === undefined ? {} : { defaultValue: options.defaultValue }),
    ...(options.secured === undefined ? {} : { secured: options.secured }),
    ...(options.secret ? { secret: true } : {}),
    optional: options.optional ?? false,
    ...extra(options),
  })) as InputBuilder<V, Extra>;
}

/** Never carries a value: link and oauth fields only show something. */
type NoValue = never;

/**
 * Builders for account and filter form fields. The key in the `fields`/`filters` object is
 * the field id.
 * @example
 * filters: { state: input.list({ name: 'State', datalist: true }), since: input.date({ name: 'Updated', optional: true }) }
 */
export const input = {
  text: builder<string>('text'),
  number: builder<number>('number'),
  bool: builder<boolean>('bool'),
  /** Accounts only; rendered as a secret input and redacted from logs and errors. */
  password: builder<string>('password'),
  /** Shows a help link; carries no value. */
  link: builder<NoValue, { url: string }>('link', (o) => ({ value: o.url })),
  highlightText: builder<string, { editorMode: 'json' | 'sql' }>('highlightText', (o) => ({
    editorMode: o.editorMode,
  })),
  /** A single date (ISO string). */
  datebox: builder<string>('datebox'),
  /** A date range typed in the date-range grammar; arrives as `{_min, _max}`. */
  date: builder<DateRangeValue>('date'),
  list: builder<string, ListExtra>('list', listExtra),
  multidropdown: builder<string[], ListExtra>('multidropdown', listExtra),
} as const;

function listExtra(options: ListExtra): Pick<InputField<never>, 'datalist' | 'datalistRequires'> {
  return {
    ...(options.datalist ? { datalist: true } : {}),
    ...(options.dependsOn && options.dependsOn.length > 0 ? { datalistRequires: options.dependsOn } : {}),
  };
}

type Optional<F> = F extends InputField<unknown, true> ? true : false;
type ValueOf<F> = F extends InputField<infer V, boolean> ? V : never;

/** The values object of a set of form fields: the inferred account or filter type. */
export type InputValues<F> = {
  -readonly [K in keyof F as Optional<F[K]> extends false
    ? [ValueOf<F[K]>] extends [never]
      ? never
      : K
    : never]: ValueOf<F[K]>;
} & {
  -readonly [K in keyof F as Optional<F[K]> extends true
    ? [ValueOf<F[K]>] extends [never]
      ? never
      : K
    : never]?: ValueOf<F[K]>;
};

/** A set of form fields keyed by id. */
export type InputFields = Record<string, InputField<any, boolean>>;

/** The descriptor form of an account field. */
export function toAuthenticationField(id: string, field: InputField<unknown>): AuthenticationField {
  return {
    id,
    name: field.name,
    type: field.type,
    description: field.description ?? '',
    optional: field.optional,
    ...(field.value === undefined ? {} : { value: field.value }),
    ...(field.editorMode === undefined ? {} : { editorMode: field.editorMode }),
    ...(field.datalistRequires === undefined ? {} : { datalist_requires: [...field.datalistRequires] }),
  };
}
