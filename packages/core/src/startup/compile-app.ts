import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import type { AppDefinition } from '../define/app.js';
import type { AuthenticationDefinition } from '../define/authentication.js';
import { toAuthenticationField } from '../define/inputs.js';
import type { SchemaFields } from '../define/schema-fields.js';
import { titleCase } from '../define/schema-fields.js';
import type { SyncTypeDefinition } from '../define/sync-type.js';
import {
  type ConfigResponse,
  type Descriptor,
  type Filter,
  SYNC_ACTION_FIELD,
  type TypeSchema,
} from '../protocol/index.js';
import { inputObjectSchema, oauthAccountSchema } from './boundary-schemas.js';
import { AppDefinitionError } from './app-definition-error.js';
import { checkDefinition } from './check-definition.js';

export const DEFAULT_PAGE_SIZE = 1000;
export const DEFAULT_TIMEOUT_MS = 25_000;
const DEFAULT_SAFETY_MARGIN_HOURS = 2;

export interface CompiledType {
  id: string;
  definition: SyncTypeDefinition<SchemaFields, unknown, unknown>;
  schema: TypeSchema;
  pageSize: number;
  delta: boolean;
  safetyMarginMs: number;
}

export interface CompiledAuth {
  definition: AuthenticationDefinition<unknown>;
  /** Checks an account of this kind; undefined when anything goes (`none`). */
  accountSchema: z.ZodType<Record<string, unknown>> | undefined;
}

export type CompiledLogo = { kind: 'svg'; body: Buffer } | { kind: 'url'; url: string } | { kind: 'none' };

/**
 * An app definition checked and turned into everything requests need, computed once: the
 * descriptor, config and schemas as ready JSON, and the boundary schemas of accounts and filters.
 */
export interface CompiledApp {
  definition: AppDefinition;
  descriptorJson: string;
  descriptor: Descriptor;
  configJson: string | undefined;
  types: Map<string, CompiledType>;
  auths: Map<string, CompiledAuth>;
  filterSchema: z.ZodType<Record<string, unknown>>;
  /** Account keys whose values are secret, over every authentication. */
  secretKeys: readonly string[];
  timeoutMs: number;
  logo: CompiledLogo;
}

export function compileApp(app: AppDefinition): CompiledApp {
  checkDefinition(app);
  const auths = new Map<string, CompiledAuth>();
  for (const definition of app.authentication) {
    auths.set(definition.id, {
      definition,
      accountSchema:
        definition.kind === 'none'
          ? undefined
          : definition.kind === 'fields'
            ? inputObjectSchema(definition.inputs ?? {})
            : oauthAccountSchema,
    });
  }
  const types = new Map<string, CompiledType>();
  for (const [id, definition] of Object.entries(app.sync?.types ?? {})) {
    const delta = Boolean(definition.delta);
    const margin =
      typeof definition.delta === 'object'
        ? (definition.delta.safetyMarginHours ?? DEFAULT_SAFETY_MARGIN_HOURS)
        : DEFAULT_SAFETY_MARGIN_HOURS;
    types.set(id, {
      id,
      definition: definition as CompiledType['definition'],
      schema: typeSchema(definition.fields, delta),
      pageSize: definition.pageSize ?? app.pageSize ?? DEFAULT_PAGE_SIZE,
      delta,
      safetyMarginMs: margin * 3_600_000,
    });
  }
  const descriptor = buildDescriptor(app);
  const config = app.sync ? buildConfig(app, types) : undefined;
  return {
    definition: app,
    descriptor,
    descriptorJson: JSON.stringify(descriptor),
    configJson: config && JSON.stringify(config),
    types,
    auths,
    filterSchema: inputObjectSchema(app.sync?.filters ?? {}),
    secretKeys: [...new Set(app.authentication.flatMap((a) => a.secretKeys))],
    timeoutMs: app.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    logo: loadLogo(app),
  };
}

function buildDescriptor(app: AppDefinition): Descriptor {
  const actions = Object.entries(app.actions ?? {}).map(([id, action]) => ({
    action: id,
    name: action.name,
    ...(action.description === undefined ? {} : { description: action.description }),
    args: Object.entries(action.args).map(([argId, arg]) => ({
      id: argId,
      name: arg.name,
      type: arg.type,
      ...(arg.description === undefined ? {} : { description: arg.description }),
      ...(arg.textTemplateSupported === undefined
        ? {}
        : { textTemplateSupported: arg.textTemplateSupported }),
    })),
  }));
  return {
    id: app.id,
    name: app.name,
    website: app.website,
    version: app.version,
    description: app.description,
    authentication: app.authentication.map((auth) => ({
      id: auth.id,
      name: auth.name,
      ...(auth.description === undefined ? {} : { description: auth.description }),
      ...(auth.kind === 'none' ? {} : { fields: auth.fields.map((f) => ({ ...f })) }),
      ...(auth.responsibleFor === undefined ? {} : { responsibleFor: auth.responsibleFor }),
    })),
    sources: [],
    responsibleFor: { dataSynchronization: Boolean(app.sync), automations: Boolean(app.actions) },
    ...(app.actions ? { actions } : {}),
  };
}

function buildConfig(app: AppDefinition, types: Map<string, CompiledType>): ConfigResponse {
  const filters: Filter[] = Object.entries(app.sync?.filters ?? {}).map(([id, input]) => {
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
    };
  });
  return {
    types: [...types.values()].map((t) => ({ id: t.id, name: t.definition.name })),
    filters,
    ...(app.sync?.webhooks ? { webhooks: { enabled: true } } : {}),
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

function loadLogo(app: AppDefinition): CompiledLogo {
  const logo = app.logo;
  if (!logo) return { kind: 'none' };
  if ('url' in logo) return { kind: 'url', url: logo.url };
  if ('svg' in logo) return { kind: 'svg', body: Buffer.from(logo.svg) };
  try {
    return { kind: 'svg', body: readFileSync(logo.file) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new AppDefinitionError([{ path: 'logo.file', message: `cannot read "${logo.file}" (${code})` }]);
  }
}
