import type { IncomingHttpHeaders } from 'node:http';
import { runMessage } from './run-record-limits.js';
import { randomUUID } from 'node:crypto';
import { type WebhookPreProcessResponse, webhookPreProcessResponse } from '@weft/core/protocol';
import { redact } from '@weft/core/redact';
import { type AppClient, isMissingEndpoint, splitItems } from '@weft/sync-engine';
import type { Driver } from '../db/driver.js';
import type { Workspace } from '../workspace.js';
import type { JobQueue } from '../jobs/job-queue.js';
import { readyForSchema } from './schema-setup.js';
import type { MappedType } from './schema-mapping.js';
import { getRun, getSource, type SourceRow } from './source-store.js';
import { sourceSecrets } from './run-exchanges.js';
import { safeMessage } from './sync-run.js';
import { removeRows, resolveLinks, type WriteContext, writeRows } from './write-rows.js';

// App webhooks: installed through the app with the workspace's event URL for the source (the
// previous webhook object is sent back, so the app can update instead of adding), deleted with
// the source. An event is checked while its sender waits, then queued as a job; a worker has the
// app transform it and applies the rows as a delta.
//
// Checking an event: when the app has `webhooks/pre-process`, the third party's request goes to it
// as it arrived (the exact bytes, for signature checks) and the app answers the reply to give the
// sender and the upstream accounts the event concerns; otherwise the app's `webhooks/verify` names
// the webhook the event belongs to.

type Json = Record<string, unknown>;

export const WEBHOOK_EVENT = 'weft-webhook-event';
/** the dead letters of event jobs: an event job that failed for good without failing its run */
export const WEBHOOK_EVENT_DEAD = 'weft-webhook-event-dead';

export interface WebhookEventJob {
  runId: string;
  params: Json;
  payload: unknown;
}

/** The third party's request as the event route received it. */
export interface IncomingEvent {
  rawBody: Buffer;
  headers: IncomingHttpHeaders;
  query: Json;
}

/** What the sender of an event is answered: the status, and the body (the app's reply). */
export interface EventReply {
  status: number;
  body?: unknown;
}

/** An event refused: the route answers it with this status (the sender sees the app's message). */
export class EventRefused extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

export async function installWebhook(
  client: AppClient,
  source: SourceRow,
  account: Json,
  url: string,
): Promise<Json> {
  return client.installWebhook({
    types: source.types,
    filter: source.filter,
    account,
    webhook: source.webhook,
    url,
  });
}

export async function removeWebhook(client: AppClient, source: SourceRow, account: Json): Promise<void> {
  if (!source.webhook) return;
  await client.deleteWebhook({
    types: source.types,
    filter: source.filter,
    account,
    webhook: source.webhook,
  });
}

// Headers that describe one hop, not the request: never forwarded.
const HOP = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
  'expect',
  'accept-encoding',
]);

/** The app's answer to the raw event, or undefined when it has no pre-process endpoint (404, 405, 501). */
async function preProcess(
  client: AppClient,
  event: IncomingEvent,
  signal?: AbortSignal,
): Promise<WebhookPreProcessResponse | undefined> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(event.headers)) {
    if (v === undefined || HOP.has(k.toLowerCase())) continue;
    headers[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(event.query)) {
    for (const one of Array.isArray(v) ? v : [v]) if (typeof one === 'string') query.append(k, one);
  }
  const qs = query.toString();
  const timeout = AbortSignal.timeout(30_000);
  const response = await fetch(
    `${client.baseUrl}/api/v1/synchronizer/webhooks/pre-process${qs ? `?${qs}` : ''}`,
    {
      method: 'POST',
      headers,
      body: new Uint8Array(event.rawBody),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    },
  ).catch(() => {
    throw new EventRefused('The app did not answer', 502);
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (isMissingEndpoint(response.status) && !(json as { workspaceIds?: unknown } | undefined)?.workspaceIds)
    return undefined;
  if (!response.ok) {
    const message =
      typeof (json as { message?: unknown })?.message === 'string'
        ? String((json as { message: string }).message).slice(0, 300)
        : `HTTP ${response.status}`;
    throw new EventRefused(
      message,
      response.status === 401 || response.status === 400 ? response.status : 400,
    );
  }
  const parsed = webhookPreProcessResponse.safeParse(json);
  if (!parsed.success) throw new EventRefused('The app answered pre-process with an unexpected shape', 502);
  return parsed.data;
}

/** The body as `verify` and `transform` receive it: JSON when it is JSON, else the text. */
function payloadOf(event: IncomingEvent): unknown {
  const raw = event.rawBody.toString('utf8');
  if (raw.length === 0) return {};
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/**
 * Checks an event for the source (pre-process, else verify) and queues it with its run, in one
 * transaction. Answers what to reply to the sender.
 */
export async function queueWebhookEvent(
  deps: { workspace: Workspace; queue: JobQueue; client: AppClient; account: Json },
  source: SourceRow,
  event: IncomingEvent,
): Promise<{ reply: EventReply; runId: string | null }> {
  const params: Json = { ...event.headers, ...event.query };
  const payload = payloadOf(event);
  const pre = await preProcess(deps.client, event);
  let reply: EventReply;
  if (pre) {
    // The app's reply is the body the sender gets; the event names the workspaces it concerns, and
    // this source's is the `workspaceId` its webhook's install answered.
    reply = { status: 200, body: pre.reply ?? {} };
    const mine = source.webhook?.workspaceId;
    if (mine !== undefined && mine !== null && !pre.workspaceIds.includes(String(mine)))
      return { reply, runId: null };
  } else {
    const id = await deps.client.verifyWebhook(params, payload).catch((error) => {
      throw new EventRefused(safeMessage(error), 400);
    });
    if (!source.webhook || String(source.webhook.id) !== id)
      throw new EventRefused('The event is not for this source', 404);
    reply = { status: 200 };
  }
  const runId = randomUUID();
  await deps.workspace.driver.transaction(async (tx) => {
    await tx.query(
      `INSERT INTO weft_host_runs (id, source_id, kind, status, mode) VALUES ($1, $2, 'webhook', 'running', 'delta')`,
      [runId, source.id],
    );
    await deps.queue.send<WebhookEventJob>(WEBHOOK_EVENT, { runId, params, payload }, { tx });
  });
  deps.queue.wake(WEBHOOK_EVENT);
  return { reply: { ...reply, body: reply.body ?? { ok: true, runId } }, runId };
}

/** The event job: the app transforms the event; its rows are applied as a delta. */
export async function applyWebhookEvent(
  deps: {
    workspace: Workspace;
    client(url: string): AppClient;
    account(source: SourceRow): Json;
    signal: AbortSignal;
  },
  job: WebhookEventJob,
): Promise<void> {
  const { driver } = deps.workspace;
  const run = await getRun(driver, job.runId);
  if (run?.status !== 'running') return;
  const source = await getSource(driver, run.source_id);
  if (!source) return;
  const client = deps.client(source.url);
  const account = deps.account(source);
  try {
    const data = await client.transformWebhook({
      params: job.params,
      payload: job.payload,
      types: source.types,
      filter: source.filter,
      account,
    });
    const schema = await client.schema(source.types, source.filter, account, deps.signal);
    // A try that outlived its expiry may answer after its run was given up (abandonWebhookEvent):
    // the run's verdict stands, and its rows are not written behind it.
    if ((await getRun(driver, run.id))?.status !== 'running') return;
    const { mapped } = await readyForSchema(deps.workspace, {
      namespace: source.namespace,
      sourceId: source.id,
      schema,
      types: source.types,
    });
    const types = new Map<string, MappedType>(mapped.map((t) => [t.appType, t]));
    const ctx: WriteContext = {
      workspace: deps.workspace,
      sourceId: source.id,
      runId: run.id,
      types,
      options: new Map(),
      // Files referenced as app://resource are fetched through the app; failures go on the run.
      app: { client, account, filter: source.filter, types: source.types },
      signal: deps.signal,
    };
    let set = 0;
    let removed = 0;
    for (const [typeId, items] of Object.entries(data)) {
      const type = types.get(typeId);
      if (!type) continue;
      const split = splitItems(items);
      set += (await writeRows(ctx, type, split.set)).set;
      if (split.remove.length > 0) removed += await removeRows(ctx, type, split.remove);
    }
    await resolveLinks(ctx);
    await driver.query(
      `UPDATE weft_host_runs SET status = 'succeeded', finished_at = clock_timestamp(), pages = 1, rows_set = $2,
         rows_removed = $3, duration_ms = (extract(epoch FROM clock_timestamp() - started_at) * 1000)::int
       WHERE id = $1 AND status = 'running'`,
      [run.id, set, removed],
    );
  } catch (error) {
    if (deps.signal.aborted) throw error;
    // An app may echo the account in its error: the run's message is shown on the page and the API.
    await failEventRun(driver, run.id, redact(safeMessage(error), sourceSecrets(source, account)));
  }
}

/** Fails an event's run that is still running (a run already ended keeps its verdict). */
async function failEventRun(driver: Driver, runId: string, message: string): Promise<void> {
  await driver.query(
    `UPDATE weft_host_runs SET status = 'failed', finished_at = clock_timestamp(), error = $2,
       duration_ms = (extract(epoch FROM clock_timestamp() - started_at) * 1000)::int
     WHERE id = $1 AND status = 'running'`,
    [runId, runMessage(message)],
  );
}

/**
 * An event job whose every try ended without an answer (its process died or stopped, or the app
 * never answered before the job's expiry): its run is failed with a message that says so, rather
 * than left `running` for ever. The event is not applied; the sender's next event, or the next
 * sync, brings its rows.
 */
export async function abandonWebhookEvent(
  driver: Driver,
  job: WebhookEventJob,
  tries: number,
): Promise<void> {
  await failEventRun(
    driver,
    job.runId,
    `Webhook event not applied: its job did not end after ${tries} tries (its process stopped or died each time)`,
  );
}
