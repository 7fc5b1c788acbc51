import { optionId } from './apply-schema.js';
import { type Conversion, convertValue } from '@weft/sync-engine';
import { type MappedType, optionNamesOf } from './schema-mapping.js';

type Json = Record<string, unknown>;

// What a Verify compares of a synced type, and how: each value as the workspace stores it, so a
// row of the app and a row of the workspace compare equal when the service would store them equal.
// The title, the plain fields (through the host's own conversion) and selects (as their options);
// relations, rich text and files are kept elsewhere (links, documents, file storage) and
// are not compared.

interface Column {
  /** the app's field id, by which drifts name it */
  appId: string;
  /** what the workspace query selects for it */
  select: unknown;
  /** its value in a workspace row */
  stored(entity: Json): unknown;
  /** an app value as the workspace would store it */
  fromApp(raw: unknown): unknown;
}

/** A stored or converted value in one form: decimals as numbers (stored as numbers, sent as either). */
function settle(conversion: Conversion, value: unknown): unknown {
  const v = value === undefined ? null : value;
  if (v !== null && conversion === 'decimal') return Number(v);
  return v;
}

const ref = (entity: Json, field: string): unknown => {
  const v = entity[field] as Json | null | undefined;
  return v && typeof v === 'object' ? (v['svc/id'] ?? null) : null;
};

export interface ComparedType {
  /** the app field ids compared */
  fields: string[];
  /** the workspace query's `q/select` (with `svc/id`) */
  select: unknown[];
  /** a workspace row as the app's field ids and stored values */
  fromWorkspace(entity: Json): Json;
  /** an app row (full sync) as the same */
  fromApp(row: Json): Json;
  /** the workspace field of the title, to name rows */
  titleField: string;
}

export function comparedType(type: MappedType): ComparedType {
  const ns = type.name.slice(0, type.name.indexOf('/'));
  const titleField = `${ns}/name`;
  const columns: Column[] = [];
  if (type.titleField)
    columns.push({
      appId: type.titleField,
      select: titleField,
      stored: (e) => e[titleField] ?? null,
      fromApp: (raw) => (raw === null || raw === undefined ? null : String(raw)),
    });
  for (const f of type.fields) {
    if (f.kind === 'primitive')
      columns.push({
        appId: f.appId,
        select: f.name,
        stored: (e) => settle(f.convert, convertValue(f.convert, e[f.name])),
        fromApp: (raw) => settle(f.convert, convertValue(f.convert, raw)),
      });
    else if (f.kind === 'enum' && f.many)
      columns.push({
        appId: f.appId,
        select: { [f.name]: { 'q/select': ['svc/id'], 'q/limit': 'q/no-limit' } },
        stored: (e) => ((e[f.name] as Json[] | null) ?? []).map((o) => String(o['svc/id'])).sort(),
        fromApp: (raw) => [...new Set(optionNamesOf(f, raw).map((n) => optionId(f.enumType, n)))].sort(),
      });
    else if (f.kind === 'enum')
      columns.push({
        appId: f.appId,
        select: { [f.name]: ['svc/id'] },
        stored: (e) => ref(e, f.name),
        fromApp: (raw) => {
          const [name] = optionNamesOf(f, raw);
          return name === undefined ? null : optionId(f.enumType, name);
        },
      });
  }
  return {
    fields: columns.map((c) => c.appId),
    select: ['svc/id', ...(type.titleField ? [] : [titleField]), ...columns.map((c) => c.select)],
    fromWorkspace: (entity) => Object.fromEntries(columns.map((c) => [c.appId, c.stored(entity)])),
    fromApp: (row) => Object.fromEntries(columns.map((c) => [c.appId, c.fromApp(row[c.appId])])),
    titleField,
  };
}
