import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import {
  AppCallError,
  AppClient,
  ExchangeThread,
  formatWarning,
  isMissingEndpoint,
  type OAuth2Callback,
  type ReaderWarning,
  type RetryPolicy,
  type SyncEvent,
} from '@weft/sync-engine';
import { WorkspaceError } from '../errors.js';
import type { Workspace } from '../workspace.js';
import { createHostTables } from './host-tables.js';
import { chooseNamespace } from './namespace.js';
import type { SecretBox } from './secret-box.js';
import {
  getRun,
  runStatus,
  getSource,
  lastSuccess,
  listRuns,
  listSources,
  type RunRow,
  runView,
  type SourceRow,
  sourceView,
} from './source-store.js';
import type { JobQueue, QueueSpec } from '../jobs/job-queue.js';
import { registerSyncJobs, syncQueueSpecs } from '../jobs/sync-jobs.js';
import {
  applyWebhookEvent,
  type IncomingEvent,
  installWebhook,
  queueWebhookEvent,
  abandonWebhookEvent,
  removeWebhook,
  WEBHOOK_EVENT,
  WEBHOOK_EVENT_DEAD,
  type WebhookEventJob,
} from './app-webhooks.js';
import { SYNC_START, type StartJob, type SyncContext, safeMessage } from './sync-run.js';
import { AccountFlows, appFailure, SYSTEM_KEYS } from './account-flows.js';
import { verifySource } from './verify-run.js';
import { createVerifySchedule, dueVerifies, setVerifyEvery } from './verify-schedule.js';
import type { OAuthSourceInput } from './oauth-pending.js';
import type { RunExchange } from './run-exchanges.js';
import { createFingerprintColumns, FULL_ASKED } from './schema-fingerprint.js';
import { unsyncedTypes } from './unsynced-types.js';
import { createLeaseColumns, DEFAULT_LEASE_SECONDS, RunLeases } from './run-lease.js';

// The app host: the local workspace playing the service towards apps. Sources (an app by URL and
// an account), their sync settings, sync runs, and app webhooks. Everything it stores lives in
// the workspace's database, so several workspace processes on one Postgres see the same sources.

type Json = Record<string, unknown>;

export interface AppHostOptions {
  box: SecretBox;
  /** where apps can reach this workspace (webhook event URLs, OAuth callbacks) */
  publicUrl: () => string;
  log?: (message: string, error?: unknown) => void;
  /** per app request; default 60 s */
  timeoutMs?: number;
  retry?: RetryPolicy;
  /** how often the scheduler (a recurring job) looks for sources due a sync; default 5 s; 0: this process runs no scheduler */
  scheduleEveryMs?: number;
  /** page jobs this process runs at once (types of a run are read concurrently); default 4 */
  concurrency?: number;
  /** how long a sync or webhook-event job may run before it counts as abandoned (its process died) and is tried again; default 300 */
  jobExpireSeconds?: number;
  /** how often a sync job (default 5) or a webhook-event job (default 3) is tried again after its process died or stopped; then its run fails */
  jobRetryLimit?: number;
  /** how long a sync run stays this process' without a renewal before the next sync fails it (run-lease.ts); default 60 s */
  runLeaseSeconds?: number;
  /** how long a failing run waits for its other page jobs in this process to record their page; default 15 s (tests of jobs that never end pass less) */
  runStopWaitMs?: number;
}

export interface AddSourceInput {
  url: string;
  /** authentication id; default the app's first */
  authId?: string;
  fields?: Json;
  /** app type ids; default those the config marks `default`, else all */
  types?: string[];
  filter?: Json;
  keepUnsynced?: boolean;
  intervalSeconds?: number | null;
}

export type UpdateSourceInput = Partial<
  Pick<AddSourceInput, 'types' | 'filter' | 'keepUnsynced' | 'intervalSeconds'>
> & {
  /** verify the source on a schedule (verify-schedule.ts); null: never */
  verifyEverySeconds?: number | null;
};

const badRequest = (message: string) => new WorkspaceError(400, 'bad-request', message);

const isEmptyValue = (v: unknown) =>
  v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);

/**
 * Filters the app does not mark `optional` must have a value before anything is synced with them,
 * as the service's form requires them: 400 naming each one missing.
 */
function requireFilters(
  filters: { id: string; title?: string; type: string; optional?: boolean | undefined }[],
  values: Json,
): void {
  const missing = filters.filter(
    (f) => f.optional !== true && f.type !== 'link' && isEmptyValue(values[f.id]),
  );
  if (missing.length === 0) return;
  const named = missing.map((f) => `${JSON.stringify(f.id)}${f.title ? ` (${f.title})` : ''}`).join(', ');
  throw badRequest(missing.length === 1 ? `Filter ${named} is required` : `Filters ${named} are required`);
}
const notFound = (message: string) => new WorkspaceError(404, 'not-found', message);

/** Types a source is to sync must be the app's: a 400 naming those that are not, and the app's. */
function noUnknownTypes(types: string[], known: string[]): void {
  const unknown = types.filter((t) => !known.includes(t));
  if (unknown.length > 0)
    throw badRequest(
      `The app has no type ${unknown.map((t) => JSON.stringify(t)).join(', ')} (its types: ${known.join(', ') || 'none'})`,
    );
}

const TICK = 'weft-sync-tick';
/** Scheduled syncs: a recurring tick job, at most one waiting, whichever process runs it. */
const TICK_QUEUE: QueueSpec = { name: TICK, expireSeconds: 60, retryLimit: 1, policy: 'short' };

/** The sync jobs' expiry and retries a host with these options gives them (unset: the sync's own). */
const syncLimits = (options: Pick<AppHostOptions, 'jobExpireSeconds' | 'jobRetryLimit'>) => ({
  ...(options.jobExpireSeconds ? { expireSeconds: options.jobExpireSeconds } : {}),
  ...(options.jobRetryLimit !== undefined ? { retryLimit: options.jobRetryLimit } : {}),
});

/** The webhook events' queues as a host with these options defines them. */
function eventQueueSpecs(
  options: Pick<AppHostOptions, 'jobExpireSeconds' | 'jobRetryLimit'>,
): [dead: QueueSpec, events: QueueSpec] {
  return [
    // Event jobs that fail for good without failing their run land in the dead letters, which
    // fail it, so it is not left `running` for ever.
    { name: WEBHOOK_EVENT_DEAD, expireSeconds: 60, retryLimit: 3, retryDelaySeconds: 1 },
    {
      name: WEBHOOK_EVENT,
      expireSeconds: options.jobExpireSeconds ?? 300,
      retryLimit: options.jobRetryLimit ?? 3,
      retryDelaySeconds: 1,
      deadLetter: WEBHOOK_EVENT_DEAD,
    },
  ];
}

/**
 * The host's job queues as a host with these options defines them at its start. A new PGlite
 * database has them made with the defaults' settings (new-database.ts), so a start with the
 * defaults writes none of them.
 */
export function hostQueueSpecs(
  options: Pick<AppHostOptions, 'jobExpireSeconds' | 'jobRetryLimit'> = {},
): QueueSpec[] {
  return [...syncQueueSpecs(syncLimits(options)), ...eventQueueSpecs(options), TICK_QUEUE];
}
/** The host's job queues' names. */
export const HOST_QUEUES = hostQueueSpecs().map((spec) => spec.name);

export class AppHost {
  readonly workspace: Workspace;
  private readonly options: AppHostOptions;
  private readonly log: (message: string, error?: unknown) => void;
  private closed = false;
  /** aborted when this process stops: its jobs under way stop, and are tried again elsewhere */
  private readonly stopping = new AbortController();
  private readonly listeners = new Set<(sourceId: string, event: SyncEvent, totals: Json) => void>();
  private readonly exchangeListeners = new Set<(sourceId: string, exchange: RunExchange) => void>();
  /** callers of waitFor in this process, by run: told when a job here ends the run */
  private readonly endWaiters = new Map<string, Set<() => void>>();
  /** OAuth connections and re-authorisation (account-flows.ts) */
  private readonly accounts: AccountFlows;
  /** callbacks that failed in this process, by state (see oauthFailure) */
  private readonly oauthFailures = new Map<string, string>();
  /** the leases of the runs this process started or works on (run-lease.ts) */
  private readonly leases: RunLeases;
  /**
   * On PGlite, the thread the host's app calls go out on (exchange-thread.ts): the database runs
   * on this thread, so a page read ahead would be read only between the statements writing the
   * page before it; there it is read and parsed meanwhile. On Postgres this thread waits on the
   * server while a page is written, and reads the next one then: the calls stay here.
   */
  private readonly exchanges = new ExchangeThread();

  private constructor(workspace: Workspace, options: AppHostOptions) {
    this.workspace = workspace;
    this.options = options;
    this.log = options.log ?? ((m, e) => console.error(m, e ?? ''));
    this.leases = new RunLeases(workspace.driver, options.runLeaseSeconds ?? DEFAULT_LEASE_SECONDS, this.log);
    this.accounts = new AccountFlows({
      driver: workspace.driver,
      box: options.box,
      client: (url) => this.client(url),
      publicUrl: options.publicUrl,
      source: (id) => this.source(id),
      addSource: (input, values) => this.addSource(input, values),
      accountReplaced: async (id) => {
        const source = await this.source(id);
        // The webhook was installed with the previous account: the app installs it again.
        if (source.webhooks_enabled) await this.installWebhookOrLog(source);
      },
    });
  }

  private get queue(): JobQueue {
    return this.workspace.jobs;
  }

  static async open(workspace: Workspace, options: AppHostOptions): Promise<AppHost> {
    await createHostTables(workspace.driver);
    await createLeaseColumns(workspace.driver);
    await createFingerprintColumns(workspace.driver);
    await createVerifySchedule(workspace.driver);
    const host = new AppHost(workspace, options);
    await host.startWorkers();
    return host;
  }

  private async startWorkers(): Promise<void> {
    const signal = this.stopping.signal;
    const ctx: Omit<SyncContext, 'pageJobMs'> = {
      workspace: this.workspace,
      queue: this.queue,
      client: (url) => this.client(url),
      account: (source) => this.account(source),
      refreshAccount: (source, s) => this.refreshAccount(source, s),
      ...(this.options.retry ? { retry: this.options.retry } : {}),
      emit: (sourceId, event, totals) => {
        for (const l of this.listeners) l(sourceId, event, totals as unknown as Json);
      },
      signal,
      exchanged: (sourceId, exchange) => {
        for (const l of this.exchangeListeners) l(sourceId, exchange);
      },
      hold: (runId) => this.leases.hold(runId),
      ...(this.options.runStopWaitMs !== undefined
        ? { stopWaitMs: z.number().int().nonnegative().parse(this.options.runStopWaitMs) }
        : {}),
      ended: (runId) => {
        for (const wake of this.endWaiters.get(runId) ?? []) wake();
      },
    };
    await registerSyncJobs(ctx, {
      log: this.log,
      ...(this.options.concurrency ? { concurrency: this.options.concurrency } : {}),
      ...syncLimits(this.options),
    });
    const [deadEvents, events] = eventQueueSpecs(this.options);
    await this.queue.define(deadEvents);
    await this.queue.define(events);
    await this.queue.work<WebhookEventJob>(WEBHOOK_EVENT_DEAD, 1, (job) =>
      abandonWebhookEvent(this.workspace.driver, job.data, events.retryLimit + 1),
    );
    await this.queue.work<WebhookEventJob>(WEBHOOK_EVENT, 2, (job) =>
      applyWebhookEvent(
        {
          workspace: this.workspace,
          client: (url) => this.client(url),
          account: (s) => this.account(s),
          signal,
        },
        job.data,
      ),
    );
    // Scheduled syncs: a recurring tick job (at most one waiting, whichever process runs it).
    const every = this.options.scheduleEveryMs ?? 5000;
    if (every > 0) {
      await this.queue.define(TICK_QUEUE);
      await this.queue.work(TICK, 1, async () => {
        try {
          await this.runDue();
        } finally {
          if (!this.closed) await this.queue.send(TICK, {}, { startAfterSeconds: every / 1000 });
        }
      });
      await this.queue.send(TICK, {});
    }
  }

  client(url: string, onWarning?: (warning: ReaderWarning) => void): AppClient {
    // The host reads parsed answers only: a page's raw text is dropped as soon as it is parsed.
    return new AppClient(url, {
      keepJsonText: false,
      ...(this.workspace.driver.kind === 'pglite' ? { exchanger: this.exchanges.send } : {}),
      ...(this.options.timeoutMs ? { timeoutMs: this.options.timeoutMs } : {}),
      ...(onWarning ? { onWarning } : {}),
    });
  }

  /** Progress of every sync run in this process (for progress bars and pages). */
  onProgress(listener: (sourceId: string, event: SyncEvent, totals: Json) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Each data request of a sync run in this process, as recorded with the run (`weft dev --verbose`). */
  onExchange(listener: (sourceId: string, exchange: RunExchange) => void): () => void {
    this.exchangeListeners.add(listener);
    return () => this.exchangeListeners.delete(listener);
  }

  async source(id: string): Promise<SourceRow> {
    const source = await getSource(this.workspace.driver, id);
    if (!source) throw notFound(`No source ${id}`);
    return source;
  }

  /** The account as the app receives it: its values plus the system keys the service adds. */
  account(source: SourceRow): Json {
    const values = source.account_enc ? this.options.box.open(source.account_enc) : {};
    return {
      ...values,
      auth: source.auth_id,
      _id: source.id,
      ...(source.account_name ? { name: source.account_name } : {}),
    };
  }

  async list() {
    return (await listSources(this.workspace.driver)).map(sourceView);
  }

  /** Reads the app's descriptor, logo and config, validates the account, checks the filter, stores the source. */
  async addSource(input: AddSourceInput, oauthValues?: Json) {
    let url: URL;
    try {
      url = new URL(input.url);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error();
    } catch {
      throw badRequest('url must be an http(s) address');
    }
    // What the descriptor and config needed taken leniently is told with the new source, once.
    const warnings: string[] = [];
    const client = this.client(url.toString(), (w) => {
      if (warnings.length < 40) warnings.push(formatWarning(w));
    });
    const descriptor = await client.descriptor().catch((e) => {
      throw appFailure(e);
    });
    const auth = input.authId
      ? descriptor.authentication.find((a) => a.id === input.authId)
      : descriptor.authentication[0];
    if (!auth) throw badRequest(`The app has no authentication ${JSON.stringify(input.authId)}`);
    const oauth = auth.id === 'oauth' || auth.id === 'oauth2';
    // OAuth tokens obtained elsewhere (weft dev --account) are taken as the connection's answer.
    const tokens =
      oauthValues ??
      (oauth && input.fields && Object.keys(input.fields).length > 0 ? input.fields : undefined);
    if (auth.id === 'oauth' && !tokens)
      throw badRequest('An OAuth 1 account is connected through POST /api/host/oauth1/start');
    if (auth.id === 'oauth2' && !tokens)
      throw badRequest('An OAuth 2 account is connected through POST /api/host/oauth2/start');
    const fields: Json = { ...tokens };
    // The workspace's own keys are added when the account is sent, never stored as its values.
    for (const k of SYSTEM_KEYS) delete fields[k];
    const declared = new Set((auth.fields ?? []).map((f) => f.id));
    for (const f of tokens ? [] : (auth.fields ?? [])) {
      const v = input.fields?.[f.id];
      if (f.type === 'link') continue;
      if ((v === undefined || v === '') && !f.optional)
        throw badRequest(`Account field ${JSON.stringify(f.id)} is required`);
      if (v !== undefined) fields[f.id] = v;
    }
    // Keys the authentication does not declare are kept and sent, as the service keeps them.
    for (const [k, v] of Object.entries(tokens ? {} : (input.fields ?? {})))
      if (!declared.has(k) && !SYSTEM_KEYS.includes(k)) fields[k] = v;
    const id = randomUUID();
    let accountName: string | null = null;
    let stored = fields;
    if (auth.id !== 'none') {
      const answer = await client.validate(auth.id, fields).catch((e) => {
        throw appFailure(e);
      });
      const { name, ...extra } = answer;
      accountName = name;
      stored = { ...fields, ...extra };
    }
    const logo = await client.logo();
    const account = { ...stored, auth: auth.id, _id: id, ...(accountName ? { name: accountName } : {}) };
    const config = await client.config(account).catch((e) => {
      throw appFailure(e);
    });
    const known = config.types.map((t) => t.id);
    const preselected = config.types
      .filter((t) => (t as { default?: unknown }).default === true)
      .map((t) => t.id);
    const types = input.types ?? (preselected.length > 0 ? preselected : known);
    noUnknownTypes(types, known);
    if (types.length === 0) throw badRequest('Choose at least one type');
    const filter = await this.filterValues(config.filters ?? [], input.filter ?? {});
    requireFilters(config.filters ?? [], filter);
    await this.checkFilter(client, types, filter, account);

    const namespace = await chooseNamespace(this.workspace.driver, descriptor.name);
    await this.workspace.driver.query(
      `INSERT INTO weft_host_sources (id, url, namespace, name, descriptor, logo, auth_id, account_name, account_enc,
         types, filter, keep_unsynced, interval_seconds, webhooks_enabled)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
      [
        id,
        url.toString().replace(/\/+$/, ''),
        namespace,
        descriptor.name,
        JSON.stringify(descriptor),
        logo ?? null,
        auth.id,
        accountName,
        this.options.box.seal(stored),
        JSON.stringify(types),
        JSON.stringify(filter),
        input.keepUnsynced ?? false,
        input.intervalSeconds ?? null,
        config.webhooks?.enabled === true,
      ],
    );
    const source = await this.source(id);
    if (source.webhooks_enabled) await this.installWebhookOrLog(source);
    return { ...sourceView(await this.source(id)), warnings };
  }

  /** Date filters typed as phrases become {_min, _max}; other values pass as they are. */
  private async filterValues(
    filters: { id: string; type: string; optional?: boolean | undefined }[],
    given: Json,
  ): Promise<Json> {
    const out: Json = {};
    for (const [key, value] of Object.entries(given)) {
      const def = filters.find((f) => f.id === key);
      if (!def) throw badRequest(`The app has no filter ${JSON.stringify(key)}`);
      if (def.type === 'date' && typeof value === 'string') {
        // The phrase grammar (chrono-node and date-fns, some 570 modules) loads for a phrase
        // only: loaded with the host, it was a fifth of a `weft dev` start's module loading.
        const { DateRangeError, parseDateRange } = await import('@weft/date-range');
        try {
          out[key] = parseDateRange(value);
        } catch (error) {
          throw badRequest(
            `Filter ${JSON.stringify(key)}: ${error instanceof DateRangeError ? error.message : 'not a date range'}`,
          );
        }
      } else out[key] = value;
    }
    return out;
  }

  private async checkFilter(client: AppClient, types: string[], filter: Json, account: Json): Promise<void> {
    try {
      await client.validateFilter(types, filter, account);
    } catch (error) {
      // An app without filter/validate accepts every filter.
      if (error instanceof AppCallError && isMissingEndpoint(error.status)) return;
      throw appFailure(error);
    }
  }

  async updateSource(id: string, input: UpdateSourceInput) {
    const source = await this.source(id);
    const client = this.client(source.url);
    const account = this.account(source);
    const config = await client.config(account).catch((e) => {
      throw appFailure(e);
    });
    const types = input.types ?? source.types;
    noUnknownTypes(
      types,
      config.types.map((t) => t.id),
    );
    const filter = input.filter ? await this.filterValues(config.filters ?? [], input.filter) : source.filter;
    requireFilters(config.filters ?? [], filter);
    await this.checkFilter(client, types, filter, account);
    await this.workspace.driver.query(
      `UPDATE weft_host_sources SET types = $2, filter = $3, keep_unsynced = $4, interval_seconds = $5, webhooks_enabled = $6 WHERE id = $1`,
      [
        id,
        JSON.stringify(types),
        JSON.stringify(filter),
        input.keepUnsynced ?? source.keep_unsynced,
        input.intervalSeconds === undefined ? source.interval_seconds : input.intervalSeconds,
        config.webhooks?.enabled === true,
      ],
    );
    if (input.verifyEverySeconds !== undefined)
      await setVerifyEvery(this.workspace.driver, id, input.verifyEverySeconds);
    const changed =
      JSON.stringify(types) !== JSON.stringify(source.types) ||
      JSON.stringify(filter) !== JSON.stringify(source.filter);
    const after = await this.source(id);
    // Types or filter changed: the webhook is installed again for them.
    if (after.webhooks_enabled && (changed || !after.webhook)) await this.refreshWebhook(after);
    return sourceView(await this.source(id));
  }

  /** The types the app offers that the source does not sync (unsynced-types.ts). */
  async unsyncedTypes(id: string) {
    const source = await this.source(id);
    return unsyncedTypes(this.client(source.url), source, this.account(source));
  }

  /** The OAuth 2 callback address apps are given: the provider sends the user back here. */
  oauthCallbackUrl(): string {
    return this.accounts.oauth2CallbackUrl();
  }

  /**
   * First step of an OAuth 2 account: asks the app for the provider's authorization address with
   * this workspace's callback and a fresh `state`; the rest of the request waits (sealed) for the
   * callback.
   */
  async startOAuth2(input: OAuthSourceInput): Promise<{ redirectUri: string; state: string }> {
    return this.accounts.start('oauth2', { input });
  }

  /** The provider's callback: the app exchanges the code for the account's tokens; the source is created (or re-authorised). */
  async finishOAuth2(callback: OAuth2Callback & { state: string }) {
    return this.oauthCallback(callback.state, () => this.accounts.finishOAuth2(callback));
  }

  /** First step of an OAuth 1 account: the app obtains a request token; it waits sealed for the callback. */
  async startOAuth1(input: OAuthSourceInput): Promise<{ redirectUri: string; state: string }> {
    return this.accounts.start('oauth', { input });
  }

  /** The OAuth 1 callback: the app exchanges the approved request token and verifier for the account. */
  async finishOAuth1(state: string, verifier: string, token?: string) {
    return this.oauthCallback(state, () => this.accounts.finishOAuth1(state, verifier, token));
  }

  /**
   * Why the callback of the OAuth connection `state` failed in this process (the app refused the
   * code, the account did not validate, …), once it has; for `weft dev`, which waits for it.
   */
  oauthFailure(state: string): string | undefined {
    return this.oauthFailures.get(state);
  }

  private async oauthCallback<T>(state: string, finish: () => Promise<T>): Promise<T> {
    try {
      return await finish();
    } catch (error) {
      // Kept for a while only: a waiter looks within seconds.
      this.oauthFailures.set(state, error instanceof Error ? error.message : 'the connection failed');
      setTimeout(() => this.oauthFailures.delete(state), 600_000).unref();
      throw error;
    }
  }

  /** Re-authorises an OAuth source: a new connection whose callback replaces this source's account. */
  async startReauthorize(id: string): Promise<{ redirectUri: string; state: string }> {
    const source = await this.source(id);
    if (source.auth_id !== 'oauth' && source.auth_id !== 'oauth2')
      throw badRequest('A form account is re-authorised through PUT /api/host/sources/:id/account');
    return this.accounts.start(source.auth_id, { sourceId: id });
  }

  /**
   * Replaces a source's account with these values as they are (a form's fields, or OAuth tokens
   * obtained elsewhere), validated through the app first; refused, the stored account stays.
   */
  async setAccount(id: string, values: Json) {
    return this.accounts.replaceAll(id, values);
  }

  /** Re-authorises a form account with new field values (empty or absent: kept), validated through the app. */
  async replaceAccount(id: string, fields: Json) {
    return this.accounts.replaceFields(id, fields);
  }

  /** The account's form as a re-authorise page shows it: no secret value, ever. */
  async describeAccount(id: string) {
    return this.accounts.describe(id);
  }

  /** The app moved (a restarted local app on a new port): same source, new address. */
  async setUrl(id: string, url: string) {
    await this.source(id);
    await this.workspace.driver.query(`UPDATE weft_host_sources SET url = $2 WHERE id = $1`, [
      id,
      url.replace(/\/+$/, ''),
    ]);
    return sourceView(await this.source(id));
  }

  async removeSource(id: string): Promise<void> {
    // Jobs of its runs under way find the run gone (deleted with the source) and end.
    const source = await this.source(id);
    if (source.webhook) {
      await removeWebhook(this.client(source.url), source, this.account(source)).catch((e) =>
        this.log(`source ${id}: deleting the app webhook failed: ${safeMessage(e)}`),
      );
    }
    await this.workspace.driver.query(`DELETE FROM weft_host_sources WHERE id = $1`, [id]);
  }

  /** The app's config for a source's account: the types it offers and its filters (for the page's form). */
  async config(id: string) {
    const source = await this.source(id);
    return this.client(source.url)
      .config(this.account(source))
      .catch((e) => {
        throw appFailure(e);
      });
  }

  async datalist(id: string, field: string, dependsOn?: Json) {
    const source = await this.source(id);
    const client = this.client(source.url);
    const account = this.account(source);
    const config = await client.config(account).catch((e) => {
      throw appFailure(e);
    });
    const def = (config.filters ?? []).find((f) => f.id === field);
    if (!def?.datalist) throw badRequest(`Filter ${JSON.stringify(field)} has no datalist`);
    const from: Json = {};
    for (const key of (def as { datalist_requires?: string[] }).datalist_requires ?? []) {
      if (source.filter[key] !== undefined) from[key] = source.filter[key];
    }
    return client.datalist(field, source.types, account, { ...from, ...dependsOn }).catch((e) => {
      throw appFailure(e);
    });
  }

  async refreshWebhook(source: SourceRow): Promise<void> {
    try {
      const webhook = await installWebhook(
        this.client(source.url),
        source,
        this.account(source),
        this.webhookUrl(source.id),
      );
      await this.workspace.driver.query(`UPDATE weft_host_sources SET webhook = $2 WHERE id = $1`, [
        source.id,
        JSON.stringify(webhook),
      ]);
    } catch (error) {
      throw appFailure(error);
    }
  }

  /**
   * Installs (or installs again) the app's webhook without failing what asked for it: a new
   * source, a new account or a sync must not fail because the third party refused the webhook.
   * The source then shows no webhook, and the next sync tries again.
   */
  private async installWebhookOrLog(source: SourceRow): Promise<void> {
    await this.refreshWebhook(source).catch((e) =>
      this.log(
        `source ${source.id}: installing the app webhook failed (tried again at the next sync): ${safeMessage(e)}`,
      ),
    );
  }

  webhookUrl(sourceId: string): string {
    return `${this.options.publicUrl().replace(/\/+$/, '')}/hooks/sources/${sourceId}`;
  }

  /**
   * An event the third party sent to the source's webhook URL: checked by the app (pre-process,
   * else verify) and queued; a worker has the app transform it and applies the rows as a delta.
   * Answers the reply for the sender and the run that records the event.
   */
  async webhookEvent(sourceId: string, event: IncomingEvent) {
    const source = await this.source(sourceId);
    return queueWebhookEvent(
      {
        workspace: this.workspace,
        queue: this.queue,
        client: this.client(source.url),
        account: this.account(source),
      },
      source,
      event,
    );
  }

  async runs(id: string) {
    await this.source(id);
    return (await listRuns(this.workspace.driver, id)).map(runView);
  }

  async run(runId: string) {
    const run = await getRun(this.workspace.driver, runId);
    if (!run) throw notFound(`No run ${runId}`);
    return runView(run);
  }

  /**
   * Starts a sync run: records it and queues its start job in one transaction; resolves with the
   * run as soon as it is recorded (`wait` for its end, wherever its jobs run).
   */
  async sync(id: string, options: { kind?: string; wait?: boolean; full?: boolean } = {}) {
    const source = await this.source(id);
    if (source.webhooks_enabled && !source.webhook) await this.installWebhookOrLog(source);
    const runId = randomUUID();
    await this.workspace.driver.transaction(async (tx) => {
      // One run per source at a time, also across processes.
      await tx.query(`SELECT id FROM weft_host_sources WHERE id = $1 FOR UPDATE`, [id]);
      // A run left by a process that stopped does not block this one (run-lease.ts).
      await this.leases.failLapsed(tx, id);
      const { rows } = await tx.query(
        `SELECT 1 FROM weft_host_runs WHERE source_id = $1 AND status = 'running' AND kind <> 'webhook'`,
        [id],
      );
      if (rows.length > 0)
        throw new WorkspaceError(409, 'conflict', 'A sync of this source is already running');
      await tx.query(
        `INSERT INTO weft_host_runs (id, source_id, kind, status, last_synchronized_at, lease_owner, lease_until, full_reason)
         VALUES ($1, $2, $3, 'running', $4, $5, ${RunLeases.until('$6')}, $7)`,
        [
          runId,
          id,
          options.kind ?? 'manual',
          // A full sync sends the app no lastSynchronizedAt: it sends every row (schema-fingerprint.ts).
          options.full ? null : await lastSuccess(tx, id),
          this.leases.owner,
          this.leases.seconds,
          options.full ? FULL_ASKED : null,
        ],
      );
      await this.queue.send<StartJob>(SYNC_START, { runId }, { tx });
    });
    this.leases.hold(runId);
    this.queue.wake(SYNC_START);
    if (options.wait) await this.waitFor(runId);
    return runView((await getRun(this.workspace.driver, runId)) as RunRow);
  }

  /** Verify (verify-run.ts): a full sync into a shadow, compared with the workspace's rows; recorded as a run. */
  async verify(id: string) {
    const source = await this.source(id);
    // A run left by a process that stopped does not block the verify either (run-lease.ts).
    await this.workspace.driver.transaction((tx) => this.leases.failLapsed(tx, id));
    const ctx = {
      workspace: this.workspace,
      client: (url: string) => this.client(url),
      account: (s: SourceRow) => this.account(s),
      signal: this.stopping.signal,
    };
    return runView(await verifySource(ctx, source));
  }

  /** Resolves once the run is no longer running (its jobs may run in any process). */
  async waitFor(runId: string): Promise<void> {
    const waiters = this.endWaiters.get(runId) ?? new Set<() => void>();
    this.endWaiters.set(runId, waiters);
    try {
      for (;;) {
        if ((await runStatus(this.workspace.driver, runId)) !== 'running' || this.closed) return;
        // Looked at again after a while (another process may end it), or at once when a job here does.
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            waiters.delete(done);
            resolve();
          };
          const timer = setTimeout(done, 250);
          waiters.add(done);
        });
      }
    } finally {
      if (waiters.size === 0) this.endWaiters.delete(runId);
    }
  }

  /** Validates the account with the app (as the service does before every sync) and keeps its answer. */
  private async refreshAccount(source: SourceRow, signal: AbortSignal): Promise<Json> {
    const account = this.account(source);
    if (source.auth_id === 'none') return account;
    const { name, ...extra } = await this.client(source.url).validate(source.auth_id, account, signal);
    const values = { ...(source.account_enc ? this.options.box.open(source.account_enc) : {}), ...extra };
    for (const k of ['auth', '_id', 'name', 'app', 'owner']) delete values[k];
    await this.workspace.driver.query(
      `UPDATE weft_host_sources SET account_enc = $2, account_name = $3 WHERE id = $1`,
      [source.id, this.options.box.seal(values), name],
    );
    return { ...values, auth: source.auth_id, _id: source.id, name };
  }

  /** Starts the syncs whose interval has passed since their last run. */
  async runDue(): Promise<void> {
    if (this.closed) return;
    const { rows } = await this.workspace.driver.query<{ id: string }>(
      `SELECT s.id FROM weft_host_sources s
        WHERE s.interval_seconds IS NOT NULL AND NOT EXISTS (
          SELECT 1 FROM weft_host_runs r WHERE r.source_id = s.id AND r.kind NOT IN ('webhook', 'verify')
            AND ((r.status = 'running' AND ${RunLeases.liveSql('r', '$1')})
              OR r.started_at > clock_timestamp() - make_interval(secs => s.interval_seconds)))`,
      [this.leases.owner],
    );
    for (const { id } of rows) {
      await this.sync(id, { kind: 'scheduled' }).catch((e) => {
        // Another process started it meanwhile: nothing to do.
        if (!(e instanceof WorkspaceError && e.status === 409)) this.log('scheduled sync', e);
      });
    }
    for (const id of await dueVerifies(this.workspace.driver)) {
      if (this.closed) return;
      await this.verify(id).catch((e) => {
        if (!(e instanceof WorkspaceError && e.status === 409)) this.log('scheduled verify', e);
      });
    }
  }

  /**
   * This process stops taking the host's jobs. Jobs under way are stopped (`abort`, the default)
   * and tried again by another process, or by this one when it starts again; runs are not failed.
   */
  async close(abort = true): Promise<void> {
    this.closed = true;
    if (abort) this.stopping.abort();
    for (const name of HOST_QUEUES) await this.queue.unwork(name);
    await this.leases.close();
    await this.exchanges.close();
  }
}
