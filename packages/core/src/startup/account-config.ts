import { createHash } from 'node:crypto';
import type { z } from 'zod';
import type { AppDefinition } from '../define/app.js';
import type { InputFields } from '../define/inputs.js';
import type { SchemaFields } from '../define/schema-fields.js';
import type { SyncTypeDefinition } from '../define/sync-type.js';
import { InvalidFilterError, WeftError } from '../errors/errors.js';
import type { Logger } from '../logging/logger.js';
import type { Filter } from '../protocol/index.js';
import type { DefinitionProblem } from './app-definition-error.js';
import { inputObjectSchema } from './boundary-schemas.js';
import { checkFilterDefinitions, checkTypeDefinitions, dedupe, formatPath } from './check-definition.js';
import { type CompiledType, compileType, configFilters } from './compile-sync.js';
import { inputFieldShape, syncTypeShape } from './definition-shape.js';
import { describeIssue } from './describe-issue.js';

export const DEFAULT_ACCOUNT_CACHE_SECONDS = 60;
/** Entries kept at most; the oldest goes first. Bounds memory whatever the number of accounts. */
const MAX_ENTRIES = 500;

/** The filters that exist for one account. */
export interface AccountFilters {
  /** The account's own filters, as config entries (after the static ones). */
  entries: Filter[];
  /** Checks a filter against the static and the account's filters. */
  schema: z.ZodType<Record<string, unknown>>;
}

interface Scope {
  signal: AbortSignal;
  log: Logger;
}

interface Entry<T> {
  expires: number;
  value: Promise<T>;
  /** The signal of the request that started the call. */
  signal: AbortSignal;
}

/**
 * Runs `accountTypes` and `accountFilters`, checks what they return with the start-up rules, and
 * keeps the result for `accountCacheSeconds` per account (and filter). The cache key is a SHA-256
 * of the account and filter: the raw account, which holds credentials, is never kept as a key.
 * Concurrent requests for one account (the service asks for every type of a sync at once) share
 * one call.
 */
export class AccountConfigResolver {
  private readonly cache = new Map<string, Entry<unknown>>();
  private readonly ttlMs: number;

  constructor(
    private readonly app: AppDefinition,
    private readonly staticTypes: ReadonlyMap<string, CompiledType>,
  ) {
    this.ttlMs = (app.sync?.accountCacheSeconds ?? DEFAULT_ACCOUNT_CACHE_SECONDS) * 1000;
  }

  get hasTypes(): boolean {
    return typeof this.app.sync?.accountTypes === 'function';
  }

  get hasFilters(): boolean {
    return typeof this.app.sync?.accountFilters === 'function';
  }

  /** The account's filters; the static ones only when the app has no `accountFilters`. */
  filters(account: Record<string, unknown>, scope: Scope): Promise<AccountFilters> {
    return this.cached('filters', account, undefined, scope.signal, async () => {
      const produce = this.app.sync?.accountFilters;
      const own = produce ? await produce({ account, signal: scope.signal, log: scope.log }) : {};
      const inputs = this.checkFilters(own);
      return {
        entries: configFilters(inputs),
        schema: inputObjectSchema({ ...this.app.sync?.filters, ...inputs }),
      };
    });
  }

  /** Checks a filter against the account's filters: 400 naming the filter otherwise. */
  async checkFilter(
    account: Record<string, unknown>,
    filter: Record<string, unknown> | null | undefined,
    scope: Scope,
  ): Promise<Record<string, unknown>> {
    const { schema } = await this.filters(account, scope);
    const parsed = schema.safeParse(filter ?? {});
    if (parsed.success) return parsed.data;
    throw new InvalidFilterError(describeIssue(parsed.error.issues[0]!, 'Filter '));
  }

  /** The account's own types (not the static ones), compiled. */
  types(
    account: Record<string, unknown>,
    filter: Record<string, unknown>,
    scope: Scope,
  ): Promise<ReadonlyMap<string, CompiledType>> {
    return this.cached('types', account, filter, scope.signal, async () => {
      const produce = this.app.sync?.accountTypes;
      if (!produce) return new Map<string, CompiledType>();
      const definitions = await produce({ account, filter, signal: scope.signal, log: scope.log });
      return this.compileTypes(definitions);
    });
  }

  /** A static type, else one of the account's types, else undefined. */
  async findType(
    id: string,
    account: Record<string, unknown>,
    filter: Record<string, unknown>,
    scope: Scope,
  ): Promise<CompiledType | undefined> {
    const known = this.staticTypes.get(id);
    if (known || !this.hasTypes) return known;
    return (await this.types(account, filter, scope)).get(id);
  }

  private compileTypes(definitions: unknown): Map<string, CompiledType> {
    if (!isRecord(definitions)) {
      throw invalid([{ path: 'accountTypes', message: 'must return an object of types keyed by type id' }]);
    }
    const problems: DefinitionProblem[] = [];
    for (const [id, definition] of Object.entries(definitions)) {
      if (this.staticTypes.has(id)) {
        problems.push({ path: `accountTypes.${id}`, message: 'is also a type of `sync.types`' });
      }
      const shape = syncTypeShape.safeParse(definition);
      if (!shape.success) {
        for (const issue of shape.error.issues) {
          problems.push({ path: formatPath(['accountTypes', id, ...issue.path]), message: issue.message });
        }
      }
    }
    checkTypeDefinitions(definitions, problems, {
      prefix: 'accountTypes',
      targets: Object.fromEntries([...this.staticTypes].map(([id, t]) => [id, t.definition])),
    });
    if (problems.length > 0) throw invalid(problems);
    const types = new Map<string, CompiledType>();
    for (const [id, definition] of Object.entries(definitions)) {
      types.set(
        id,
        compileType(this.app, id, definition as SyncTypeDefinition<SchemaFields, unknown, unknown>),
      );
    }
    return types;
  }

  private checkFilters(inputs: unknown): InputFields {
    if (!isRecord(inputs)) {
      throw invalid([
        { path: 'accountFilters', message: 'must return an object of filters keyed by filter id' },
      ]);
    }
    const problems: DefinitionProblem[] = [];
    const known = this.app.sync?.filters ?? {};
    for (const [id, input] of Object.entries(inputs)) {
      if (id in known)
        problems.push({ path: `accountFilters.${id}`, message: 'is also a filter of `sync.filters`' });
      const shape = inputFieldShape.safeParse(input);
      if (!shape.success) {
        for (const issue of shape.error.issues) {
          problems.push({ path: formatPath(['accountFilters', id, ...issue.path]), message: issue.message });
        }
      }
    }
    checkFilterDefinitions({ ...known, ...inputs }, this.app.sync?.datalists ?? {}, problems, {
      prefix: 'accountFilters',
      orphanHandlers: false,
    });
    if (problems.length > 0) throw invalid(problems);
    return inputs as InputFields;
  }

  private cached<T>(
    kind: string,
    account: Record<string, unknown>,
    filter: Record<string, unknown> | undefined,
    signal: AbortSignal,
    produce: () => Promise<T>,
  ): Promise<T> {
    if (this.ttlMs === 0) return produce();
    const key = createHash('sha256')
      .update(kind)
      .update('\u0000')
      .update(stableJson(account))
      .update('\u0000')
      .update(stableJson(filter ?? null))
      .digest('base64url');
    const now = Date.now();
    const hit = this.cache.get(key);
    if (hit && hit.expires > now) {
      // The call was started by another request; if that request was abandoned (its signal
      // aborted the call), this one is not, so it asks again instead of failing with it.
      return (hit.value as Promise<T>).catch((error: unknown) => {
        if (hit.signal === signal || !hit.signal.aborted || signal.aborted) throw error;
        return this.cached(kind, account, filter, signal, produce);
      });
    }
    if (hit) this.cache.delete(key);
    const value = produce();
    this.cache.set(key, { expires: now + this.ttlMs, value, signal });
    // A failure is not remembered: the next request tries again.
    value.catch(() => {
      if (this.cache.get(key)?.value === value) this.cache.delete(key);
    });
    while (this.cache.size > MAX_ENTRIES) {
      const oldest = this.cache.keys().next().value;
      if (oldest === undefined) break;
      this.cache.delete(oldest);
    }
    return value;
  }
}

function invalid(problems: DefinitionProblem[]): WeftError {
  const list = dedupe(problems).map((p) => `${p.path}: ${p.message}`);
  return new WeftError(`The app's account-dependent definition is invalid: ${list.join('; ')}`, {
    status: 500,
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSON with sorted keys, so equal accounts hash equally whatever their key order. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    isRecord(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, v[k]]),
        )
      : v,
  );
}
