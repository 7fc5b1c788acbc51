import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import type { AppDefinition } from '../define/app.js';
import type { AuthenticationDefinition } from '../define/authentication.js';
import type { Descriptor } from '../protocol/index.js';
import { inputObjectSchema, oauthAccountSchema } from './boundary-schemas.js';
import { AppDefinitionError } from './app-definition-error.js';
import { AccountConfigResolver } from './account-config.js';
import { checkDefinition } from './check-definition.js';
import { type CompiledType, buildConfig, compileType, configFilters } from './compile-sync.js';

export { DEFAULT_PAGE_SIZE, type CompiledType } from './compile-sync.js';

export const DEFAULT_TIMEOUT_MS = 25_000;

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
  /** The app has no filter fields: every JSON object is a valid filter, as it is. */
  openFilter: boolean;
  /** Account keys whose values are secret, over every authentication. */
  secretKeys: readonly string[];
  timeoutMs: number;
  logo: CompiledLogo;
  /** Types and filters that depend on the account (`accountTypes`, `accountFilters`), cached. */
  accountConfig: AccountConfigResolver;
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
    types.set(id, compileType(app, id, definition as CompiledType['definition']));
  }
  const descriptor = buildDescriptor(app);
  const config = app.sync
    ? buildConfig(app, [...types.values()], configFilters(app.sync.filters ?? {}))
    : undefined;
  return {
    definition: app,
    descriptor,
    descriptorJson: JSON.stringify(descriptor),
    configJson: config && JSON.stringify(config),
    types,
    auths,
    filterSchema: inputObjectSchema(app.sync?.filters ?? {}),
    openFilter: Object.keys(app.sync?.filters ?? {}).length === 0,
    secretKeys: [...new Set(app.authentication.flatMap((a) => a.secretKeys))],
    timeoutMs: app.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    logo: loadLogo(app),
    accountConfig: new AccountConfigResolver(app, types),
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
