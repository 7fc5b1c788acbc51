import type { AppDefinition } from '../define/app.js';
import { type InputFields, toAuthenticationField } from '../define/inputs.js';
import { type SchemaFields, titleCase } from '../define/schema-fields.js';
import type { SyncTypeDefinition } from '../define/sync-type.js';
import { type ConfigResponse, type Filter, SYNC_ACTION_FIELD, type TypeSchema } from '../protocol/index.js';
import { type ItemSerializer, itemSerializer } from './value-serializer.js';

export const DEFAULT_PAGE_SIZE = 1000;
const DEFAULT_SAFETY_MARGIN_HOURS = 2;

export interface CompiledType {
  id: string;
  definition: SyncTypeDefinition<SchemaFields, unknown, unknown>;
  schema: TypeSchema;
  pageSize: number;
  delta: boolean;
  safetyMarginMs: number;
  /** Turns the items app code yields into what the service takes (see value-serializer.ts). */
  serialize: ItemSerializer;
}

/** One synced type, ready for requests. Also used for the types `accountTypes` returns. */
export function compileType(
  app: AppDefinition,
  id: string,
  definition: SyncTypeDefinition<SchemaFields, unknown, unknown>,
): CompiledType {
  const delta = Boolean(definition.delta);
  const margin =
    typeof definition.delta === 'object'
      ? (definition.delta.safetyMarginHours ?? DEFAULT_SAFETY_MARGIN_HOURS)
      : DEFAULT_SAFETY_MARGIN_HOURS;
  const schema = typeSchema(definition.fields, delta);
  return {
    id,
    definition,
    schema,
    pageSize: definition.pageSize ?? app.pageSize ?? DEFAULT_PAGE_SIZE,
    delta,
    safetyMarginMs: margin * 3_600_000,
    serialize: itemSerializer(schema),
  };
}

/** The config's filter entries for a set of filter inputs. */
export function configFilters(inputs: InputFields): Filter[] {
  return Object.entries(inputs).map(([id, input]) => {
    const { name, ...field } = toAuthenticationField(id, input);
    return {
      id,
      title: name ?? id,
      type: field.type,
      optional: input.optional,
      ...(input.datalist ? { datalist: true } : {}),
      ...(input.secured === undefined ? {} : { secured: input.secured }),
      ...(field.editorMode === undefined ? {} : { editorMode: field.editorMode }),
      ...(field.datalist_requires === undefined ? {} : { datalist_requires: field.datalist_requires }),
      ...(input.defaultValue === undefined ? {} : { defaultValue: input.defaultValue }),
    };
  });
}

/** The config answer for a set of compiled types and filters. */
export function buildConfig(
  app: AppDefinition,
  types: readonly CompiledType[],
  filters: readonly Filter[],
): ConfigResponse {
  return {
    types: types.map((t) => {
      const d = t.definition;
      return {
        id: t.id,
        name: d.name,
        ...(d.description === undefined ? {} : { description: d.description }),
        ...(d.default === undefined ? {} : { default: d.default }),
        ...(d.isUser === undefined ? {} : { isUser: d.isUser }),
      };
    }),
    filters: [...filters],
    ...(app.sync?.webhooks ? { webhooks: { enabled: true } } : {}),
    ...(app.sync?.version === undefined ? {} : { version: app.sync.version }),
  };
}

function typeSchema(fields: SchemaFields, delta: boolean): TypeSchema {
  const schema: TypeSchema = {};
  for (const [id, field] of Object.entries(fields)) {
    const spec = { ...field.spec, id, name: field.spec.name || titleCase(id) };
    if (spec.relation && !spec.relation.name) spec.relation = { ...spec.relation, name: spec.name };
    schema[id] = spec;
  }
  if (delta) schema[SYNC_ACTION_FIELD] = { id: SYNC_ACTION_FIELD, type: 'text', name: 'Sync Action' };
  return schema;
}
