import { appRequests, boundHeap, type HeapBounds, type TypeDrift } from '@weft/sync-engine';
import { randomUUID } from 'node:crypto';
import { serviceAccount } from './account.js';
import { checkAbsentKeys } from './checks/absent-keys.js';
import { checkActions, checkMissingArgs } from './checks/actions.js';
import { checkConfig } from './checks/config.js';
import { checkConfigProbes } from './checks/config-probes.js';
import { checkDatalistProbes, checkDatalists } from './checks/datalist.js';
import { checkDrift } from './checks/drift.js';
import { checkDescriptor, type DescriptorInfo } from './checks/descriptor.js';
import { checkActionErrors, checkSyncErrors } from './checks/errors.js';
import { checkFilterValidate } from './checks/filter.js';
import { checkLogo } from './checks/logo.js';
import { checkOAuth } from './checks/oauth.js';
import { checkResume } from './checks/resume.js';
import { checkSchema, checkSchemaWithoutFilter, checkSyncActionField } from './checks/schema.js';
import { checkRelations, indexedFields, type PhaseResult, type SyncEnv, syncType } from './checks/sync.js';
import { checkValidate } from './checks/validate.js';
import { checkWebhooks } from './checks/webhooks.js';
import { Context, jsonAnswerProblem } from './context.js';
import { secretValues } from './secrets.js';
import { TypeStore } from './store/type-store.js';
import { resolveDateFilters } from './date-filter.js';
import { ConformanceOptionsError } from './errors.js';
import type {
  CheckGroup,
  ConformanceOptions,
  ConformanceReport,
  ConformanceSummary,
  TypeSyncReport,
} from './types.js';
import { mapLimit } from './util.js';

export const DEFAULT_MAX_PAGES = 1000;
export const DEFAULT_TIMEOUT_MS = 10_000;
const DAY_MS = 24 * 60 * 60 * 1000;
/**
 * A run allocates a page's rows, checks them and drops them, while what it keeps is small
 * (hashes, a few sample rows): old space grows by half the live heap at most, and the young
 * generation stays at its first size (at a million rows, 60-90 MB of old space and 32 MB of young
 * generation for a live heap of 20-40 MB without). Measured on the kit's scale bench.
 */
export const KIT_HEAP_BOUNDS: HeapBounds = { growingPercent: 50, semiSpaceGrowthFactor: 1 };
const GROUP_ORDER: CheckGroup[] = [
  'descriptor',
  'logo',
  'validate',
  'config',
  'schema',
  'datalist',
  'filter',
  'data',
  'delta',
  'drift',
  'webhooks',
  'actions',
  'oauth',
  'errors',
];

/**
 * The per-request limit once the app announced its own: a little longer than the app's, so that
 * its 504 `tryLater` arrives before the kit gives up. Never shorter than what was asked for.
 */
export function effectiveTimeout(requested: number, appLimitMs: number | undefined): number {
  if (appLimitMs === undefined) return requested;
  return Math.max(requested, appLimitMs + Math.max(1000, Math.round(appLimitMs * 0.1)));
}

function toDate(name: string, value: Date | string): Date {
  const date = new Date(value);
  if (Number.isNaN(date.getTime()))
    throw new ConformanceOptionsError(`${name} is not a date: ${String(value)}`);
  return date;
}

/** The `types` option checked for shape (before the app is asked anything). */
function chosenTypes(types: string[] | undefined): string[] | undefined {
  if (types === undefined) return undefined;
  if (!Array.isArray(types) || types.length === 0 || !types.every((t) => typeof t === 'string' && t !== ''))
    throw new ConformanceOptionsError('types must be a non-empty list of type ids');
  return types;
}

/** The app's types the run syncs: those chosen, in the app's order; each must be the app's. */
function pickTypes(declared: string[], chosen: string[]): string[] {
  const unknown = chosen.filter((t) => !declared.includes(t));
  if (unknown.length > 0)
    throw new ConformanceOptionsError(
      `the app declares no type ${unknown.map((t) => `'${t}'`).join(', ')} (its types: ${declared.join(', ') || 'none'})`,
    );
  return declared.filter((t) => chosen.includes(t));
}

function positiveInt(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1)
    throw new ConformanceOptionsError(`${name} must be a positive integer, got ${value}`);
  return value;
}

/** Plays the service's side against the app at `url` and reports every departure from the protocol. */
export async function runConformance(
  url: string,
  options: ConformanceOptions = {},
): Promise<ConformanceReport> {
  try {
    new URL(url);
  } catch {
    throw new ConformanceOptionsError(`not a URL: ${url}`);
  }
  const maxPages = positiveInt('maxPages', options.maxPages, DEFAULT_MAX_PAGES);
  const timeoutMs = positiveInt('timeoutMs', options.timeoutMs, DEFAULT_TIMEOUT_MS);
  // Every type at once unless limited: the service asks for the first page of every type of a
  // sync together, and apps that fetch all types upstream in one go answer only once all have asked.
  const concurrency =
    options.concurrency === undefined ? undefined : positiveInt('concurrency', options.concurrency, 1);
  const only = chosenTypes(options.types);
  const now = options.now ?? new Date();
  const nowMs = toDate('now', now).getTime();
  const lastSynchronizedAt = (
    options.lastSynchronizedAt === undefined
      ? new Date(nowMs - DAY_MS)
      : toDate('lastSynchronizedAt', options.lastSynchronizedAt)
  ).toISOString();
  const strict = options.strict === true;
  const driftWait = options.driftWaitSeconds ?? 0;
  if (!Number.isFinite(driftWait) || driftWait < 0)
    throw new ConformanceOptionsError(`driftWaitSeconds must be a number of seconds, got ${driftWait}`);
  let drift: TypeDrift[] | undefined;
  /** the app's types the `types` option left out */
  let leftOut: string[] = [];

  if (options.boundHeap !== false) boundHeap(KIT_HEAP_BOUNDS);
  const started = performance.now();
  const ctx = new Context(url, timeoutMs, options.onProgress);
  const sync: Record<string, TypeSyncReport> = {};
  const account = options.account;

  ctx.progress({ kind: 'group', group: 'descriptor' });
  const info = await checkDescriptor(ctx);
  ctx.timeoutMs = effectiveTimeout(timeoutMs, info?.timeLimitMs);
  if (info) {
    ctx.progress({ kind: 'group', group: 'logo' });
    await checkLogo(ctx);

    const declared = info.authentications.map((a) => a.id);
    ctx.addSecrets(secretValues(account, info));
    const authenticationId = options.authenticationId ?? declared.find((id) => id !== 'none') ?? 'none';
    if (options.authenticationId && declared.length > 0 && !declared.includes(options.authenticationId)) {
      throw new ConformanceOptionsError(
        `authentication '${options.authenticationId}' is not declared by the app (declared: ${declared.join(', ')})`,
      );
    }
    ctx.progress({ kind: 'group', group: 'validate' });
    const validated = await checkValidate(ctx, info, authenticationId, account);
    // From here on the account is sent as the service stores it: with its system keys.
    const stored = serviceAccount(
      validated
        ? { authenticationId, fields: account ?? {}, validated }
        : { authenticationId, fields: account ?? {} },
    );

    let syncTypes: string[] = [];
    let syncFilter: Record<string, unknown> = {};
    const integration = info.integration && (await confirmIntegration(ctx, info, stored));
    if (integration) {
      ctx.progress({ kind: 'group', group: 'config' });
      const config = await checkConfig(ctx, stored);
      await checkConfigProbes(ctx);
      if (config) {
        const types = only ? pickTypes(config.types, only) : config.types;
        syncTypes = types;
        leftOut = config.types.filter((t) => !types.includes(t));
        syncFilter = await resolveDateFilters(config.filters, options.filter, now);
        const requiredFilters = config.filters.filter((f) => !f.optional).map((f) => f.id);
        ctx.progress({ kind: 'group', group: 'schema' });
        const checked = await checkSchema(ctx, types, syncFilter, stored, config.types);
        const schema = checked?.info;
        await checkSchemaWithoutFilter(ctx, types, requiredFilters, stored);

        ctx.progress({ kind: 'group', group: 'datalist' });
        await checkDatalists(ctx, types, config.filters, syncFilter, stored);
        await checkDatalistProbes(ctx, types, config.filters, stored);
        ctx.progress({ kind: 'group', group: 'filter' });
        await checkFilterValidate(ctx, types, config.filters, syncFilter, stored);

        const env: SyncEnv = {
          ctx,
          types,
          schema,
          ...(checked ? { schemaAnswer: checked.answer } : {}),
          filter: syncFilter,
          account: stored,
          maxPages,
          operationId: randomUUID(),
        };
        // What the service would store per type, in bounded memory (ids hashed, a few sample rows).
        const stores = new Map(types.map((t) => [t, new TypeStore(indexedFields(schema, t))]));
        ctx.progress({ kind: 'group', group: 'data' });
        const full = new Map<string, PhaseResult>();
        await mapLimit(types, concurrency ?? types.length, async (t) => {
          const result = await syncType(env, t, 'data', stores.get(t)!, null);
          full.set(t, result);
          await checkResume(env, result);
        });
        // A sync of its own whose requests leave the optional keys out: every type's first page at
        // once, as the service asks them.
        const bare: SyncEnv = { ...env, operationId: randomUUID() };
        await mapLimit(types, concurrency ?? types.length, (t) => checkAbsentKeys(bare, t));
        const coverage = schema ? checkRelations(ctx, schema, full) : new Map();
        for (const t of types) {
          const r = full.get(t)!;
          const report: TypeSyncReport = {
            count: r.rows.size,
            pages: r.pages,
            sample: [],
            relationCoverage: coverage.get(t) ?? {},
          };
          if (r.synchronizationType) report.synchronizationType = r.synchronizationType;
          sync[t] = report;
        }

        ctx.progress({ kind: 'group', group: 'delta' });
        const deltaEnv: SyncEnv = { ...env, operationId: randomUUID() };
        const delta = new Map<string, PhaseResult>();
        await mapLimit(types, concurrency ?? types.length, async (t) => {
          delta.set(t, await syncType(deltaEnv, t, 'delta', stores.get(t)!, lastSynchronizedAt));
        });
        for (const t of types) {
          const r = delta.get(t)!;
          const report = sync[t]!;
          report.delta = { count: r.rows.size, pages: r.pages, set: r.set, removed: r.removed };
          if (r.synchronizationType) report.delta.synchronizationType = r.synchronizationType;
          report.sample = r.rows.sample();
        }
        if (schema) {
          const seen = (key: 'sawRemove' | 'sawAction') =>
            new Set(types.filter((t) => full.get(t)?.[key] || delta.get(t)?.[key]));
          checkSyncActionField(ctx, schema, seen('sawRemove'), seen('sawAction'));
        }
        if (options.drift) {
          ctx.progress({ kind: 'group', group: 'drift' });
          drift = await checkDrift(
            { ...env, operationId: randomUUID() },
            { waitSeconds: driftWait, onWait: (seconds) => ctx.progress({ kind: 'drift-wait', seconds }) },
          );
        }
        if (config.webhooks) {
          ctx.progress({ kind: 'group', group: 'webhooks' });
          await checkWebhooks(ctx, types, syncFilter, stored);
        }
      }
    }

    if (info.automations) {
      ctx.progress({ kind: 'group', group: 'actions' });
      await checkActions(
        ctx,
        options.actions,
        info.actions.map((a) => a.action),
        stored,
      );
      await checkMissingArgs(ctx, info.actions, stored);
    }
    ctx.progress({ kind: 'group', group: 'oauth' });
    await checkOAuth(ctx, declared);

    ctx.progress({ kind: 'group', group: 'errors' });
    if (integration) await checkSyncErrors(ctx, syncTypes, syncFilter, stored);
    if (info.automations) await checkActionErrors(ctx, stored);
  }
  ctx.finishGlobalChecks();
  // Group the checks in a fixed order (the sort is stable, so each group keeps its run order).
  const checks = [...ctx.checks].sort((a, b) => GROUP_ORDER.indexOf(a.group) - GROUP_ORDER.indexOf(b.group));

  const summary: ConformanceSummary = { passed: 0, failed: 0, warned: 0, skipped: 0 };
  for (const c of checks) {
    if (c.status === 'pass') summary.passed++;
    else if (c.status === 'fail') summary.failed++;
    else if (c.status === 'warn') summary.warned++;
    else summary.skipped++;
  }
  const report: ConformanceReport = {
    url,
    ok: summary.failed === 0 && (!strict || summary.warned === 0),
    strict,
    timeoutMs: ctx.timeoutMs,
    checks,
    summary,
    sync,
    durationMs: Math.round(performance.now() - started),
  };
  if (info?.timeLimitMs !== undefined) report.appTimeLimitMs = info.timeLimitMs;
  if (drift) report.drift = drift;
  if (leftOut.length > 0) report.typesLeftOut = leftOut;
  return report;
}

/**
 * Without `responsibleFor` the roles are guessed: an app with actions is an integration app too
 * only when `config` answers with a JSON object. Apps that declare the role are always checked.
 */
async function confirmIntegration(
  ctx: Context,
  info: DescriptorInfo,
  account: Record<string, unknown>,
): Promise<boolean> {
  if (!info.rolesGuessed || !info.automations) return true;
  const ex = await ctx.send(appRequests.config(account), { optional: true });
  return jsonAnswerProblem(ex) === undefined && ex.isJson && typeof ex.json === 'object' && ex.json !== null;
}
