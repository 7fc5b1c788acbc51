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

/** A `svc/location`-style value. */
export interface LocationValue {
  longitude: number;
  latitude: number;
  fullAddress?: string;
  addressParts?: Record<string, string>;
}

export interface RangeValue {
  start: string;
  end: string;
}

function make<V>(spec: SchemaFieldDefinition['spec'], options: FieldOptions = {}): SchemaFieldDefinition<V> {
  const out: Record<string, unknown> = { ...spec };
  for (const key of ['name', 'description', 'readonly', 'ignore'] as const) {
    if (options[key] !== undefined) out[key] = options[key];
  }
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

function options(list: readonly SelectOption[]) {
  return list.map((option) => ({ ...option }));
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
  bool: (o: FieldOptions = {}) => make<boolean>({ type: 'text', subType: 'boolean' }, o),
  /** A date-time, ISO 8601. */
  date: (o: FieldOptions = {}) => make<string>({ type: 'date' }, o),
  /** A date without time (`YYYY-MM-DD`). */
  day: (o: FieldOptions = {}) => make<string>({ type: 'date', subType: 'day' }, o),
  dateRange: (o: FieldOptions = {}) => make<RangeValue>({ type: 'date', subType: 'date-range' }, o),
  dateTimeRange: (o: FieldOptions = {}) => make<RangeValue>({ type: 'date', subType: 'date-time-range' }, o),
  url: (o: FieldOptions = {}) => make<string>({ type: 'text', subType: 'url' }, o),
  email: (o: FieldOptions = {}) => make<string>({ type: 'text', subType: 'email' }, o),
  /** Rich text in Markdown. */
  markdown: (o: FieldOptions = {}) => make<string>({ type: 'text', subType: 'md' }, o),
  /** Rich text in HTML. */
  html: (o: FieldOptions = {}) => make<string>({ type: 'text', subType: 'html' }, o),
  /** An emoji or icon name. */
  icon: (o: FieldOptions = {}) => make<string>({ type: 'text', subType: 'icon' }, o),
  singleSelect: (o: FieldOptions & { options: readonly SelectOption[] }) =>
    make<string>({ type: 'text', subType: 'single-select', options: options(o.options) }, o),
  multiSelect: (o: FieldOptions & { options: readonly SelectOption[] }) =>
    make<string[]>({ type: 'array[text]', subType: 'multi-select', options: options(o.options) }, o),
  /** A workflow state; mark the closing states `final`. */
  workflow: (o: FieldOptions & { options: readonly SelectOption[] }) =>
    make<string>({ type: 'text', subType: 'workflow', options: options(o.options) }, o),
  /** File references: URLs, or `app://resource?...` served by the app's resource handler. */
  files: (o: FieldOptions = {}) => make<string[]>({ type: 'array[text]', subType: 'file' }, o),
  /** Avatar images, as file references. */
  avatar: (o: FieldOptions = {}) => make<string[]>({ type: 'array[text]', subType: 'avatar' }, o),
  location: (o: FieldOptions = {}) => make<LocationValue>({ type: 'text', subType: 'location' }, o),
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
