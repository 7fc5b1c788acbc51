import { randomUUID } from 'node:crypto';
import { DateRangeError, parseDateRange } from '@weft/date-range';
import { AppCallError, AppClient, type RetryPolicy, type SyncEvent } from '@weft/sync-engine';
import { WorkspaceError } from '../errors.js';
import type { Workspace } from '../workspace.js';
import { createHostTables } from './host-tables.js';
import { namespaceFor } from './schema-mapping.js';
import type { SecretBox } from './secret-box.js';
import {
  getRun,
  getSource,
  lastSuccess,
  listRuns,
  listSources,
  type RunRow,
  runView,
  type SourceRow,
  sourceView,
} from './source-store.js';
import { safeMessage, syncSource } from './sync-run.js';
import { applyWebhookEvent, installWebhook, removeWebhook } from './app-webhooks.js';
import { AccountFlows } from './account-flows.js';
import type { OAuthSourceInput } from './oauth-pending.js';

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
  /** how often the scheduler looks for sources due a sync and runs left by a dead process; default 5 s; 0 turns it off */
  scheduleEveryMs?: number;
  /** how long a running sync's lease lasts without a heartbeat before another process takes it over; default 30 s */
  leaseMs?: number;
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
>;

const badRequest = (message: string) => new WorkspaceError(400, 'bad-request', message);
const notFound = (message: string) => new WorkspaceError(404, 'not-found', message);

/** An app's error as the host reports it: 400 for what the user can fix, 502 otherwise. */
function appFailure(error: unknown): WorkspaceError {
  if (error instanceof AppCallError) {
    const status = error.status === 401 || error.status === 400 ? 400 : 502;
    return new WorkspaceError(status, status === 400 ? 'bad-request' : 'internal', error.message);
  }
  return error instanceof WorkspaceError ? error : new WorkspaceError(502, 'internal', safeMessage(error));
}

export class AppHost {
  readonly workspace: Workspace;
  private readonly options: AppHostOptions;
  private readonly log: (message: string, error?: unknown) => void;
  private readonly running = new Map<string, { controller: AbortController; done: Promise<unknown> }>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  /** this process, as the owner of the runs it leases */
  readonly instance = randomUUID();
  private readonly listeners = new Set<(sourceId: string, event: SyncEvent, totals: Json) => void>();
  /** OAuth connections and re-authorisation (account-flows.ts) */
  private readonly accounts: AccountFlows;

  private constructor(workspace: Workspace, options: AppHostOptions) {
    this.workspace = workspace;
    this.options = options;
    this.log = options.log ?? ((m, e) => console.error(m, e ?? ''));
    this.accounts = new AccountFlows({
      driver: workspace.driver,
      box: options.box,
      client: (url) => this.client(url),
      publicUrl: options.publicUrl,
      source: (id) => this.source(id),
      addSource: (input, values) => this.addSource(input, values),
    });
  }

  static async open(workspace: Workspace, options: AppHostOptions): Promise<AppHost> {
    await createHostTables(workspace.driver);
    const host = new AppHost(workspace, options);
    const every = options.scheduleEveryMs ?? 5000;
    if (every > 0) {
      host.timer = setInterval(
        () =>
          void host
            .runDue()
            .then(() => host.resumeStale())
            .catch((e) => host.log('scheduler', e)),
        every,
      );
      host.timer.unref();
    }
    return host;
  }

  client(url: string): AppClient {
    return new AppClient(url, { ...(this.options.timeoutMs ? { timeoutMs: this.options.timeoutMs } : {}) });
  }

  /** Progress of every sync run in this process (for progress bars and pages). */
  onProgress(listener: (sourceId: string, event: SyncEvent, totals: Json) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
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
    const client = this.client(url.toString());
    const descriptor = await client.descriptor().catch((e) => {
      throw appFailure(e);
    });
    const auth = input.authId
      ? descriptor.authentication.find((a) => a.id === input.authId)
      : descriptor.authentication[0];
    if (!auth) throw badRequest(`The app has no authentication ${JSON.stringify(input.authId)}`);
    if (auth.id === 'oauth' && !oauthValues)
      throw badRequest('An OAuth 1 account is connected through POST /api/host/oauth1/start');
    if (auth.id === 'oauth2' && !oauthValues)
      throw badRequest('An OAuth 2 account is connected through POST /api/host/oauth2/start');
    const fields: Json = { ...oauthValues };
    for (const f of oauthValues ? [] : (auth.fields ?? [])) {
      const v = input.fields?.[f.id];
      if (f.type === 'link') continue;
      if ((v === undefined || v === '') && !f.optional)
        throw badRequest(`Account field ${JSON.stringify(f.id)} is required`);
      if (v !== undefined) fields[f.id] = v;
    }
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
    const unknown = types.filter((t) => !known.includes(t));
    if (unknown.length > 0) throw badRequest(`The app has no type ${unknown.join(', ')}`);
    if (types.length === 0) throw badRequest('Choose at least one type');
    const filter = this.filterValues(config.filters ?? [], input.filter ?? {});
    await this.checkFilter(client, types, filter, account);

    let namespace = namespaceFor(descriptor.name);
    const taken = new Set((await listSources(this.workspace.driver)).map((s) => s.namespace));
    for (let n = 2; taken.has(namespace); n++) namespace = `${namespaceFor(descriptor.name)}-${n}`;
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
    if (source.webhooks_enabled) await this.refreshWebhook(source);
    return sourceView(await this.source(id));
  }

  /** Date filters typed as phrases become {_min, _max}; other values pass as they are. */
  private filterValues(
    filters: { id: string; type: string; optional?: boolean | undefined }[],
    given: Json,
  ): Json {
    const out: Json = {};
    for (const [key, value] of Object.entries(given)) {
      const def = filters.find((f) => f.id === key);
      if (!def) throw badRequest(`The app has no filter ${JSON.stringify(key)}`);
      if (def.type === 'date' && typeof value === 'string') {
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
      if (error instanceof AppCallError && error.status === 404) return;
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
    const unknown = types.filter((t) => !config.types.some((c) => c.id === t));
    if (unknown.length > 0) throw badRequest(`The app has no type ${unknown.join(', ')}`);
    const filter = input.filter ? this.filterValues(config.filters ?? [], input.filter) : source.filter;
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
    const changed =
      JSON.stringify(types) !== JSON.stringify(source.types) ||
      JSON.stringify(filter) !== JSON.stringify(source.filter);
    const after = await this.source(id);
    // Types or filter changed: the webhook is installed again for them.
    if (after.webhooks_enabled && (changed || !after.webhook)) await this.refreshWebhook(after);
    return sourceView(await this.source(id));
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
  async finishOAuth2(state: string, code: string) {
    return this.accounts.finishOAuth2(state, code);
  }

  /** First step of an OAuth 1 account: the app obtains a request token; it waits sealed for the callback. */
  async startOAuth1(input: OAuthSourceInput): Promise<{ redirectUri: string; state: string }> {
    return this.accounts.start('oauth', { input });
  }

  /** The OAuth 1 callback: the app exchanges the approved request token and verifier for the account. */
  async finishOAuth1(state: string, verifier: string, token?: string) {
    return this.accounts.finishOAuth1(state, verifier, token);
  }

  /** Re-authorises an OAuth source: a new connection whose callback replaces this source's account. */
  async startReauthorize(id: string): Promise<{ redirectUri: string; state: string }> {
    const source = await this.source(id);
    if (source.auth_id !== 'oauth' && source.auth_id !== 'oauth2')
      throw badRequest('A form account is re-authorised through PUT /api/host/sources/:id/account');
    return this.accounts.start(source.auth_id, { sourceId: id });
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
    const source = await this.source(id);
    this.running.get(id)?.controller.abort();
    if (source.webhook) {
      await removeWebhook(this.client(source.url), source, this.account(source)).catch((e) =>
        this.log(`source ${id}: deleting the app webhook failed: ${safeMessage(e)}`),
      );
    }
    await this.workspace.driver.query(`DELETE FROM weft_host_sources WHERE id = $1`, [id]);
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

  webhookUrl(sourceId: string): string {
    return `${this.options.publicUrl().replace(/\/+$/, '')}/hooks/sources/${sourceId}`;
  }

  /** An event the third party sent to the source's webhook URL: verify, transform, apply as delta rows. */
  async webhookEvent(sourceId: string, params: Json, payload: unknown) {
    const source = await this.source(sourceId);
    return applyWebhookEvent(this, source, params, payload);
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

  /** Starts a sync run; resolves with the run as soon as it is recorded (`wait` for its end). */
  async sync(id: string, options: { kind?: string; wait?: boolean } = {}) {
    const source = await this.source(id);
    if (this.running.has(id))
      throw new WorkspaceError(409, 'conflict', 'A sync of this source is already running');
    const lastSynchronizedAt = await lastSuccess(this.workspace.driver, id);
    const runId = randomUUID();
    await this.workspace.driver.query(
      `INSERT INTO weft_host_runs (id, source_id, kind, status, last_synchronized_at, lease_owner, lease_until)
       VALUES ($1, $2, $3, 'running', $4, $5, clock_timestamp() + make_interval(secs => $6))`,
      [runId, id, options.kind ?? 'manual', lastSynchronizedAt, this.instance, this.leaseSeconds],
    );
    const run = (await getRun(this.workspace.driver, runId)) as RunRow;
    const controller = new AbortController();
    const done = this.execute(source, run, controller.signal).finally(() => this.running.delete(id));
    this.running.set(id, { controller, done });
    if (options.wait) await done;
    return runView((await getRun(this.workspace.driver, runId)) as RunRow);
  }

  private get leaseSeconds(): number {
    return (this.options.leaseMs ?? 30_000) / 1000;
  }

  /**
   * Takes over one run whose process stopped renewing its lease (it died mid-sync) and resumes it
   * from the pages its progress records. Several processes on one database each take a different
   * run (SKIP LOCKED).
   */
  async resumeStale(): Promise<boolean> {
    if (this.closed) return false;
    const { rows } = await this.workspace.driver.query<RunRow>(
      `UPDATE weft_host_runs SET lease_owner = $1, lease_until = clock_timestamp() + make_interval(secs => $2)
        WHERE id = (SELECT id FROM weft_host_runs WHERE status = 'running' AND kind <> 'webhook'
                      AND lease_until < clock_timestamp() ORDER BY started_at LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING *`,
      [this.instance, this.leaseSeconds],
    );
    const run = rows[0];
    if (!run) return false;
    const source = await getSource(this.workspace.driver, run.source_id);
    if (!source || this.running.has(source.id)) return false;
    this.log(`resuming sync run ${run.id} of source ${source.id} left by another process`);
    const controller = new AbortController();
    const done = this.execute(source, run, controller.signal).finally(() => this.running.delete(source.id));
    this.running.set(source.id, { controller, done });
    return true;
  }

  private async execute(source: SourceRow, run: RunRow, signal: AbortSignal): Promise<void> {
    const client = this.client(source.url);
    const started = Date.now() - (run.duration_ms ?? 0);
    // The lease is renewed while this process works on the run.
    const heartbeat = setInterval(
      () =>
        void this.workspace.driver
          .query(
            `UPDATE weft_host_runs SET lease_until = clock_timestamp() + make_interval(secs => $3)
              WHERE id = $1 AND lease_owner = $2`,
            [run.id, this.instance, this.leaseSeconds],
          )
          .catch(() => {}),
      Math.max(100, (this.options.leaseMs ?? 30_000) / 3),
    );
    try {
      let account = this.account(source);
      // The service validates the account before every sync and keeps what /validate returns.
      if (source.auth_id !== 'none') {
        const { name, ...extra } = await client.validate(source.auth_id, account, signal);
        const values = { ...(source.account_enc ? this.options.box.open(source.account_enc) : {}), ...extra };
        for (const k of ['auth', '_id', 'name', 'app', 'owner']) delete values[k];
        await this.workspace.driver.query(
          `UPDATE weft_host_sources SET account_enc = $2, account_name = $3 WHERE id = $1`,
          [source.id, this.options.box.seal(values), name],
        );
        account = { ...values, auth: source.auth_id, _id: source.id, name };
      }
      const result = await syncSource({
        workspace: this.workspace,
        client,
        source,
        run,
        account,
        signal,
        ...(this.options.retry ? { retry: this.options.retry } : {}),
        onEvent: (event, totals) => {
          for (const l of this.listeners) l(source.id, event, totals);
        },
      });
      await this.workspace.driver.query(
        `UPDATE weft_host_runs SET status = 'succeeded', mode = $2, finished_at = clock_timestamp(), duration_ms = $3,
           rows_removed = $4, error = $5 WHERE id = $1`,
        [
          run.id,
          result.mode,
          Date.now() - started,
          result.rowsRemoved,
          result.warnings.length > 0 ? result.warnings.join('; ') : null,
        ],
      );
    } catch (error) {
      const message = safeMessage(error);
      this.log(`sync of source ${source.id} failed: ${message}`);
      await this.workspace.driver
        .query(
          `UPDATE weft_host_runs SET status = 'failed', finished_at = clock_timestamp(), duration_ms = $2, error = $3 WHERE id = $1`,
          [run.id, Date.now() - started, message],
        )
        .catch((e) => this.log('recording a failed run', e));
    } finally {
      clearInterval(heartbeat);
    }
  }

  /** Starts the syncs whose interval has passed since their last run. */
  async runDue(): Promise<void> {
    if (this.closed) return;
    const { rows } = await this.workspace.driver.query<{ id: string }>(
      `SELECT s.id FROM weft_host_sources s
        WHERE s.interval_seconds IS NOT NULL AND NOT EXISTS (
          SELECT 1 FROM weft_host_runs r WHERE r.source_id = s.id AND r.kind <> 'webhook'
            AND (r.status = 'running' OR r.started_at > clock_timestamp() - make_interval(secs => s.interval_seconds)))`,
    );
    for (const { id } of rows) {
      if (!this.running.has(id))
        await this.sync(id, { kind: 'scheduled' }).catch((e) => this.log('scheduled sync', e));
    }
  }

  /** Waits for the runs of this process to end (or stops them when `abort`). */
  async close(abort = true): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    for (const r of this.running.values()) if (abort) r.controller.abort();
    await Promise.allSettled([...this.running.values()].map((r) => r.done));
  }
}
