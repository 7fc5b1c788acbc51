import type { TypeSchema } from '../protocol/index.js';

/** Rewrites a page of items in place of the ones app code yielded; identity when nothing needs it. */
export type ItemSerializer = (items: Record<string, unknown>[]) => Record<string, unknown>[];

type Convert = (value: unknown) => unknown;

// App code yields natural values ({start, end}, a location object, a boolean); the service takes
// some of them only in another shape. Each converter leaves values it does not recognise alone,
// so an app that already yields the wire shape (a JSON string) is not double-encoded.

/** `text/date-range` and `text/date-time-range`: the service takes the JSON *string* of `{start, end}`. */
const range: Convert = (value) =>
  isObject(value) && 'start' in value && 'end' in value
    ? JSON.stringify({ start: value.start, end: value.end })
    : value;

/** `text/location`: the JSON string of `{longitude, latitude, fullAddress?, ...}`. */
const location: Convert = (value) => (isObject(value) ? JSON.stringify(value) : value);

/** `text/boolean`: the field is text; the service reads the strings `true`/`false`. */
const boolean: Convert = (value) => (typeof value === 'boolean' ? String(value) : value);

/** `text/avatar`: one image URL; earlier weft versions took a list, whose first URL is sent. */
const avatar: Convert = (value) => (Array.isArray(value) ? (value[0] ?? null) : value);

function converterOf(type: string, subType: string | undefined): Convert | undefined {
  if (type !== 'text') return undefined;
  switch (subType) {
    case 'date-range':
    case 'date-time-range':
      return range;
    case 'location':
      return location;
    case 'boolean':
      return boolean;
    case 'avatar':
      return avatar;
    default:
      return undefined;
  }
}

const identity: ItemSerializer = (items) => items;

/**
 * The serializer of one type, built once from its schema. Types without such fields get the
 * identity, so the common case costs nothing per item.
 */
export function itemSerializer(schema: TypeSchema): ItemSerializer {
  const converters: Array<[string, Convert]> = [];
  for (const [id, field] of Object.entries(schema)) {
    if (field.relation) continue;
    const convert = converterOf(field.type, field.subType);
    if (convert) converters.push([id, convert]);
  }
  if (converters.length === 0) return identity;
  return (items) =>
    items.map((item) => {
      let out: Record<string, unknown> | undefined;
      for (const [id, convert] of converters) {
        const value = item[id];
        if (value === undefined || value === null) continue;
        const next = convert(value);
        if (next !== value) {
          out ??= { ...item };
          out[id] = next;
        }
      }
      return out ?? item;
    });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
