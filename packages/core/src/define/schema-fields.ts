import type { RelationCardinality, SchemaFieldSpec } from '../protocol/index.js';

/**
 * A field of a synced type. `V` is the value an item carries for it; items are typed from
 * their type's fields.
 */
export interface SchemaFieldDefinition<V = unknown> {
  /** Schema entry as sent on the wire, without its id (the key it is defined under). */
  readonly spec: Omit<SchemaFieldSpec, 'id' | 'name'> & { name?: string };
  /** Phantom: the item value type, for inference only. */
  readonly __value?: V;
}

/** Options every field builder takes. `name` defaults to the field id in Title Case. */
export interface FieldOptions {
  name?: string;
  description?: string;
  /** Forbids users to change the field's name and type. */
  readonly?: boolean;
  /** Hides the field from the fields catalog. */
  ignore?: boolean;
  /** Position of the field in the service's UI (lower first). */
  order?: number;
  /**
   * Names of the service's post-processing functions applied to the value; passed through as
   * given (weft does not interpret them).
   */
  postProcessingFunctions?: readonly string[];
}

export interface NumberOptions extends FieldOptions {
  precision?: number;
  hasThousandSeparator?: boolean;
  unit?: string;
}

export interface SelectOption {
  name: string;
  default?: boolean;
  /** Workflow only: a state that closes the item. */
  final?: boolean;
  color?: string;
  icon?: string;
}

export interface RelationOptions extends FieldOptions {
  /** Id of the target type. */
  to: string;
  cardinality: RelationCardinality;
  /** Name of the field on the target side. */
  targetName: string;
  /** Target field matched with this field's value; usually `id`. */
  targetFieldId?: string;
}

/**
 * A location. Sent as the JSON string `{"longitude":..,"latitude":..,"fullAddress":..}`; a
 * string value (`"52.5, 13.4"`, latitude first) is sent as it is.
 */
export interface LocationValue {
  longitude: number;
  latitude: number;
  fullAddress?: string;
  addressParts?: Record<string, string>;
}

/** A date or date-time range. Sent as the JSON string `{"start":..,"end":..}`, as the service wants. */
export interface RangeValue {
  start: string;
  end: string;
}

/** Options of a relation to the workspace's users, matched by e-mail. */
export interface UserRelationOptions extends FieldOptions {
  cardinality?: 'many-to-one' | 'many-to-many';
  /** Name of the field on the user side. */
  targetName: string;
  /** The workspace's user type; default `fibery/user`, as the real service names it. */
  targetType?: string;
  /** The user field matched with this field's value (an e-mail, case-sensitive); default `user/email`. */
  targetFieldId?: string;
}

/**
 * The workspace's user type and its e-mail field, which native user relations match. Apps talk to
 * the real service, so this is its name (`fibery/user`), whatever namespace a local workspace
 * speaks; the local workspace's host takes it (and `svc/user`) as its own user type.
 */
export const WORKSPACE_USER_TYPE = 'fibery/user';
export const WORKSPACE_USER_EMAIL_FIELD = 'user/email';

function make<V>(spec: SchemaFieldDefinition['spec'], options: FieldOptions = {}): SchemaFieldDefinition<V> {
  const out: Record<string, unknown> = { ...spec };
  for (const key of ['name', 'description', 'readonly', 'ignore', 'order'] as const) {
    if (options[key] !== undefined) out[key] = options[key];
  }
  if (options.postProcessingFunctions !== undefined)
    out.postProcessingFunctions = [...options.postProcessingFunctions];
  return { spec: out as SchemaFieldDefinition['spec'] };
}

function numberFormat(
  format: 'Money' | 'Percent' | 'Number',
  options: NumberOptions & { currencyCode?: string },
) {
  return {
    format,
    ...(options.currencyCode === undefined ? {} : { currencyCode: options.currencyCode }),
    ...(options.precision === undefined ? {} : { precision: options.precision }),
    ...(options.hasThousandSeparator === undefined
      ? {}
      : { hasThousandSeparator: options.hasThousandSeparator }),
    ...(options.unit === undefined ? {} : { unit: options.unit }),
  };
}

/** Without options the service infers them from the data. */
function options(list: readonly SelectOption[] | undefined) {
  return list === undefined ? {} : { options: list.map((option) => ({ ...option })) };
}

interface SelectOptions extends FieldOptions {
  options?: readonly SelectOption[];
}

/**
 * Builders for the fields of a synced type, covering every `type` and `subType` the service
 * knows. The key in the `fields` object is the field id.
 * @example
 * fields: { id: field.id(), name: field.text({ name: 'Title' }), repo: field.relation({ to: 'repo', cardinality: 'many-to-one', targetName: 'Issues' }) }
 */
export const field = {
  /** The item's identity. Every type has one, keyed `id`. */
  id: (o: FieldOptions = {}) => make<string | number>({ type: 'id', name: 'Id' }, o),
  text: (o: FieldOptions = {}) => make<string>({ type: 'text' }, o),
  /** The type's title field (subType `title`). */
  title: (o: FieldOptions = {}) => make<string>({ type: 'text', subType: 'title' }, o),
  /** A list of strings (`array[text]`). */
  textArray: (o: FieldOptions = {}) => make<string[]>({ type: 'array[text]' }, o),
  number: (o: NumberOptions = {}) =>
    make<number>(
      {
        type: 'number',
        ...(o.precision !== undefined || o.unit !== undefined || o.hasThousandSeparator !== undefined
          ? { format: numberFormat('Number', o) }
          : {}),
      },
      o,
    ),
  integer: (o: FieldOptions = {}) => make<number>({ type: 'number', subType: 'integer' }, o),
  money: (o: NumberOptions & { currencyCode: string }) =>
    make<number>({ type: 'number', format: numberFormat('Money', o) }, o),
  percent: (o: NumberOptions = {}) => make<number>({ type: 'number', format: numberFormat('Percent', o) }, o),
  /** A phone number, kept as text. */
  phone: (o: FieldOptions = {}) => make<string>({ type: 'text', format: { format: 'phone' } }, o),
  /** A yes/no value; sent as the string `"true"` or `"false"` (the field's wire type is text). */
  bool: (o: FieldOptions = {}) => make<boolean>({ type: 'text', subType: 'boolean' }, o),
  /** A date-time, ISO 8601. */
  date: (o: FieldOptions = {}) => make<string>({ type: 'date' }, o),
  /** A date without time (`YYYY-MM-DD`). */
  day: (o: FieldOptions = {}) => make<string>({ type: 'date', subType: 'day' }, o),
  /** A range of days: yield `{start, end}`; core sends it as a JSON string. */
  dateRange: (o: FieldOptions = {}) => make<RangeValue | string>({ type: 'text', subType: 'date-range' }, o),
  /** A range of instants: yield `{start, end}`; core sends it as a JSON string. */
  dateTimeRange: (o: FieldOptions = {}) =>
    make<RangeValue | string>({ type: 'text', subType: 'date-time-range' }, o),
  url: (o: FieldOptions = {}) => make<string>({ type: 'text', subType: 'url' }, o),
  email: (o: FieldOptions = {}) => make<string>({ type: 'text', subType: 'email' }, o),
  /** Rich text in Markdown. */
  markdown: (o: FieldOptions = {}) => make<string>({ type: 'text', subType: 'md' }, o),
  /** Rich text in HTML. */
  html: (o: FieldOptions = {}) => make<string>({ type: 'text', subType: 'html' }, o),
  /** An emoji or icon name. */
  icon: (o: FieldOptions = {}) => make<string>({ type: 'text', subType: 'icon' }, o),
  /** One option by name. At most one option may be `default`. */
  singleSelect: (o: SelectOptions = {}) =>
    make<string>({ type: 'text', subType: 'single-select', ...options(o.options) }, o),
  multiSelect: (o: SelectOptions = {}) =>
    make<string[]>({ type: 'array[text]', subType: 'multi-select', ...options(o.options) }, o),
  /** A workflow state: exactly one option is `default` (new items) and one is `final` (done). */
  workflow: (o: SelectOptions = {}) =>
    make<string>({ type: 'text', subType: 'workflow', ...options(o.options) }, o),
  /** File references: URLs, or `app://resource?...` served by the app's resource handler. */
  files: (o: FieldOptions = {}) => make<string[]>({ type: 'array[text]', subType: 'file' }, o),
  /**
   * An avatar: one image URL. (A list is accepted for compatibility with earlier weft versions:
   * its first URL is sent.)
   */
  avatar: (o: FieldOptions = {}) => make<string | readonly string[]>({ type: 'text', subType: 'avatar' }, o),
  location: (o: FieldOptions = {}) => make<LocationValue | string>({ type: 'text', subType: 'location' }, o),
  /**
   * A relation to another synced type, declared on one side only. Values are the target's id
   * (an array of ids for many-to-many).
   */
  relation: <const C extends RelationCardinality>(o: RelationOptions & { cardinality: C }) =>
    make<C extends 'many-to-many' ? Array<string | number> : string | number>(
      {
        type: o.cardinality === 'many-to-many' ? 'array[text]' : 'text',
        relation: {
          cardinality: o.cardinality,
          name: o.name ?? '',
          targetType: o.to,
          targetName: o.targetName,
          targetFieldId: o.targetFieldId ?? 'id',
        },
      },
      o,
    ),
  /**
   * A relation to the workspace's own users (`kind: "native"`): the value is the user's e-mail
   * (an array of e-mails for many-to-many), matched case-sensitively.
   */
  user: <const C extends 'many-to-one' | 'many-to-many' = 'many-to-one'>(
    o: UserRelationOptions & { cardinality?: C },
  ) =>
    make<C extends 'many-to-many' ? string[] : string>(
      {
        type: o.cardinality === 'many-to-many' ? 'array[text]' : 'text',
        relation: {
          cardinality: o.cardinality ?? 'many-to-one',
          kind: 'native',
          name: o.name ?? '',
          targetType: o.targetType ?? WORKSPACE_USER_TYPE,
          targetName: o.targetName,
          targetFieldId: o.targetFieldId ?? WORKSPACE_USER_EMAIL_FIELD,
        },
      },
      o,
    ),
} as const;

/** Fields of a type, keyed by id. */
export type SchemaFields = Record<string, SchemaFieldDefinition<any>>;

/** The item type of a set of fields: `id` required, every other field optional or null. */
export type ItemOf<F> = { id: string | number } & {
  -readonly [K in keyof F as K extends 'id' ? never : K]?: F[K] extends SchemaFieldDefinition<infer V>
    ? V | null
    : never;
};

/** "createdAt" -> "Created At", "due_date" -> "Due Date": the default field name. */
export function titleCase(id: string): string {
  const words = id
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_-]+/)
    .filter(Boolean);
  return words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join(' ');
}
