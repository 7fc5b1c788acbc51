import {
  AppCallError,
  type AppClient,
  DEFAULT_RETRY,
  formatWarning,
  type RetryPolicy,
  retryDelay,
  type Exchange,
  type SyncEvent,
  splitItems,
} from '@weft/sync-engine';
import { redact } from '@weft/core/redact';
import { runMessage } from './run-record-limits.js';
import type { Queryable } from '../db/driver.js';
import type { JobQueue } from '../jobs/job-queue.js';
import type { Workspace } from '../workspace.js';
import { readyForSchema } from './schema-setup.js';
import { type MappedType, mapSchema } from './schema-mapping.js';
import { relationOrder } from './type-order.js';
import { loadPlan, type RunPlan, savePlan } from './run-plan.js';
import { getRun, getSource, type RunRow, type SourceRow } from './source-store.js';
import { callError } from './run-errors.js';
import { ExchangeRecorder, pruneExchanges, type RunExchange, sourceSecrets } from './run-exchanges.js';
import { FULL_SCHEMA_CHANGED, schemaFingerprint } from './schema-fingerprint.js';
import { HeldAnswers } from './held-answers.js';
import {
  removeRows,
  forgetSeen,
  removeUnsent,
  resolveLinks,
  type Unresolved,
  type WriteContext,
  writeRows,
} from './write-rows.js';

// One sync run of a source as jobs, so its state lives in the database and never in a process:
// a start job validates the account, reads the schema and creates what is missing, then sends a
// page job per type; a page job reads ONE page from the app, writes its rows, and in one
// transaction records the progress and sends the job of the next page (or, when every type is
// done, the finish job). A `tryLater` page is sent again with a delay (the page, not the sync).
// The finish job sets relations and (full sync) removes rows not sent. An error fails the run:
// rows already written stay, and nothing is removed.

type Json = Record<string, unknown>;

export const SYNC_START = 'weft-sync-start';
export const SYNC_PAGE = 'weft-sync-page';
export const SYNC_FINISH = 'weft-sync-finish';
/** the dead letters of the three: jobs that failed for good without failing their run */
export const SYNC_DEAD = 'weft-sync-dead';

export interface TypeProgress {
  /** the next page to read and the pagination that asks for it; absent when the type is done */
  next?: { page: number; pagination: Json | null };
  done?: boolean;
  mode?: 'full' | 'delta';
  /** failed attempts at the next page so far */
  attempts?: number;
  /**
   * the page the job carrying this type's pages was sent for, while that job goes on past it
   * (absent: the job of `next.page` carries them)
   */
  job?: number;
  /** the type held no row when the run started: its rows are written as creates without a lookup */
  fresh?: boolean;
  /** values of this type's pages so far taken only by coercion: `<field>: <what>` → how many */
  coerced?: Record<string, number>;
  /** values of this type's pages so far that did not fit their field, stored empty: `<field>` → how many */
  unfit?: Record<string, number>;
}

/** Where the run is: small, rewritten by every page (what is decided once is its plan: run-plan.ts). */
export interface RunProgress {
  warnings?: string[];
  /** warnings past the kept ones, counted */
  moreWarnings?: number;
  types?: Record<string, TypeProgress>;
}

export interface StartJob {
  runId: string;
}
export interface PageJob {
  runId: string;
  type: string;
  page: number;
  pagination: Json | null;
}
export interface FinishJob {
  runId: string;
}
/** A start, page or finish job that failed for good (pg-boss copies its data, not its queue). */
export type DeadJob = StartJob | PageJob | FinishJob;

/** What the jobs need from the host. */
export interface SyncContext {
  workspace: Workspace;
  queue: JobQueue;
  client(url: string): AppClient;
  /** the account as the app receives it */
  account(source: SourceRow): Json;
  /** validates the account with the app and stores what it answers (before every sync) */
  refreshAccount(source: SourceRow, signal: AbortSignal): Promise<Json>;
  retry?: RetryPolicy;
  emit(
    sourceId: string,
    event: SyncEvent,
    totals: { pages: number; rowsSet: number; rowsRemoved: number },
  ): void;
  signal: AbortSignal;
  /** a page's data request was answered (or not), as recorded with the run (run-exchanges.ts) */
  exchanged?(sourceId: string, exchange: RunExchange): void;
  /** this process works on the run: it keeps the run's lease until the run ends (run-lease.ts) */
  hold?(runId: string): void;
  /** a run ended (succeeded or failed) in this process: whoever waits for it here looks at once */
  ended?(runId: string): void;
  /** how long a page job goes on reading pages before it hands over to a new job (well under its expiry) */
  pageJobMs: number;
  /** how long a failing run waits for its other page jobs here to record their page; default STOP_WAIT_MS */
  stopWaitMs?: number;
}

/** A message safe to store and show: the app's own message or a generic one, never a request body. */
export function safeMessage(error: unknown): string {
  return runMessage(unclippedMessage(error));
}

function unclippedMessage(error: unknown): string {
  if (error instanceof AppCallError) return error.message;
  if (error instanceof Error && /^(Stored account|Type |Field |commands\[)/.test(error.message))
    return error.message;
  if (error instanceof Error && error.name === 'AbortError') return 'The sync was stopped';
  return error instanceof Error ? `Sync failed: ${error.message.slice(0, 300)}` : 'Sync failed';
}

/** The run, locked for this transaction, when it is still running. */
async function lockRunning(tx: Queryable, runId: string): Promise<RunRow | undefined> {
  const { rows } = await tx.query<RunRow>(`SELECT * FROM weft_host_runs WHERE id = $1 FOR UPDATE`, [runId]);
  return rows[0]?.status === 'running' ? rows[0] : undefined;
}

/**
 * Runs being failed in this process, by run: their page jobs here stop after the page at hand
 * (written and recorded; nothing more is asked for), so the failed run's counts include it.
 */
const stops = new Map<string, AbortController>();
/** The page jobs under way in this process, by run. */
const active = new Map<string, Set<Promise<void>>>();
/** How long a failing run waits for its other page jobs here to record the page at hand. */
const STOP_WAIT_MS = 15_000;

function stopOf(runId: string): AbortController {
  let stop = stops.get(runId);
  if (!stop) {
    stop = new AbortController();
    stops.set(runId, stop);
  }
  return stop;
}

export async function failRun(ctx: SyncContext, runId: string, error: unknown): Promise<void> {
  firstPages.drop(runId);
  // The run's other page jobs in this process stop after their page at hand and record it, so the
  // failed run's counts include it (jobs in other processes add theirs later: countLanded).
  stopOf(runId).abort();
  const under = [...(active.get(runId) ?? [])];
  if (under.length > 0) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled(under),
      new Promise((r) => {
        timer = setTimeout(r, ctx.stopWaitMs ?? STOP_WAIT_MS);
      }),
    ]);
    clearTimeout(timer);
  }
  await ctx.workspace.driver.query(
    `UPDATE weft_host_runs SET status = 'failed', finished_at = clock_timestamp(),
       duration_ms = (extract(epoch FROM clock_timestamp() - started_at) * 1000)::int, error = $2
     WHERE id = $1 AND status = 'running'`,
    [runId, await runErrorMessage(ctx, runId, error)],
  );
  stops.delete(runId);
  await settleLinks(ctx, runId);
  await forgetSeen(ctx.workspace, runId).catch(() => {});
  ctx.ended?.(runId);
}

/**
 * The run's error as stored and logged: safeMessage with the source's account secrets redacted,
 * since an app may echo them in its error.
 */
export async function runErrorMessage(ctx: SyncContext, runId: string, error: unknown): Promise<string> {
  const message = safeMessage(error);
  try {
    const run = await getRun(ctx.workspace.driver, runId);
    const source = run && (await getSource(ctx.workspace.driver, run.source_id));
    return source ? redact(message, sourceSecrets(source, ctx.account(source))) : message;
  } catch {
    // no account to read (removed meanwhile): nothing of it to redact
    return message;
  }
}

/**
 * A failed run's relations that waited for its end are set for the rows that did land (a row
 * written is as good as in a run that succeeded). Best effort: the run has failed already, and
 * what cannot be linked now is linked by the next sync, which sends the rows again.
 */
async function settleLinks(ctx: SyncContext, runId: string): Promise<void> {
  try {
    const run = await getRun(ctx.workspace.driver, runId);
    const source = run && (await getSource(ctx.workspace.driver, run.source_id));
    const plan = run && (await loadPlan(ctx.workspace.driver, run));
    if (!run || !source || !plan) return;
    await resolveLinks(writeContext(ctx, source, run, plan), { keepUnresolved: true });
  } catch {
    // see above: the next sync links them
  }
}

/**
 * A page written after its run failed (another type's page failed meanwhile): its progress is not
 * recorded, but its rows did land, so the run's counts include them and its links are set.
 */
async function countLanded(ctx: SyncContext, runId: string, set: number, removed: number): Promise<void> {
  const { rows } = await ctx.workspace.driver.query(
    `UPDATE weft_host_runs SET rows_set = rows_set + $2, rows_removed = rows_removed + $3
      WHERE id = $1 AND status = 'failed' RETURNING id`,
    [runId, set, removed],
  );
  if (rows.length > 0) await settleLinks(ctx, runId);
}

/** The run's warnings about values coerced and references that resolve to no synced row. */
function dataWarnings(
  progress: RunProgress,
  byAppType: Map<string, MappedType>,
  unresolved: Unresolved,
): string[] {
  const out: string[] = [];
  for (const [appType, tp] of Object.entries(progress.types ?? {})) {
    // Sorted: the progress is JSONB, which keeps no key order.
    const name = byAppType.get(appType)?.name ?? appType;
    const line = (counted: Record<string, number> | undefined, what: (total: number) => string) => {
      const counts = Object.entries(counted ?? {}).sort(([a], [b]) => a.localeCompare(b));
      if (counts.length === 0) return;
      const total = counts.reduce((n, [, c]) => n + c, 0);
      out.push(`${name}: ${what(total)} (${counts.map(([k, n]) => `${n} × ${k}`).join(', ')})`);
    };
    line(tp.coerced, (n) => `${n} values coerced as the service does`);
    line(tp.unfit, (n) =>
      n === 1
        ? '1 value did not fit its field and was stored empty'
        : `${n} values did not fit their field and were stored empty`,
    );
  }
  for (const [field, { count, sample, raw }] of unresolved) {
    out.push(
      `${field}: ${count} references resolve to no synced row (e.g. ${sample.join(', ')}), kept as sent in ${raw}`,
    );
  }
  return out;
}

const addCounts = (into: Record<string, number>, more: Record<string, number> | undefined) => {
  for (const [k, n] of Object.entries(more ?? {})) into[k] = (into[k] ?? 0) + n;
};

async function load(
  ctx: SyncContext,
  runId: string,
): Promise<{ run: RunRow; source: SourceRow } | undefined> {
  const run = await getRun(ctx.workspace.driver, runId);
  if (run?.status !== 'running') return undefined;
  const source = await getSource(ctx.workspace.driver, run.source_id);
  return source ? { run, source } : undefined;
}

/** Run warnings kept word for word; past these, one line counts the rest. */
const MAX_WARNINGS = 40;

function addWarnings(progress: RunProgress, more: string[]): void {
  progress.warnings ??= [];
  const list = progress.warnings;
  for (const w of more) {
    if (list.length < MAX_WARNINGS) list.push(w);
    else progress.moreWarnings = (progress.moreWarnings ?? 0) + 1;
  }
}

function writeContext(
  ctx: SyncContext,
  source: SourceRow,
  run: RunRow,
  plan: RunPlan,
  page?: { client: AppClient; account: Json; warnings: string[] },
): WriteContext & { byAppType: Map<string, MappedType> } {
  const progress = run.progress as RunProgress;
  const typeIds = plan.typeIds ?? source.types;
  const mapped = mapSchema(
    source.namespace,
    source.id,
    plan.schema as never,
    typeIds,
    new Map(Object.entries(plan.partners ?? {})),
    plan.kept,
  );
  const byAppType = new Map<string, MappedType>(mapped.map((t) => [t.appType, t]));
  return {
    workspace: ctx.workspace,
    sourceId: source.id,
    runId: run.id,
    types: byAppType,
    options: new Map(),
    byAppType,
    newTypes: new Set(
      typeIds.filter((t) => progress.types?.[t]?.fresh).map((t) => byAppType.get(t)?.name as string),
    ),
    // Files referenced as app://resource are fetched through the app; failed files become warnings.
    ...(page
      ? {
          app: { client: page.client, account: page.account, filter: source.filter, types: typeIds },
          warnings: page.warnings,
        }
      : {}),
    signal: ctx.signal,
  };
}

/** True when the workspace type holds no row. */
async function isEmpty(workspace: Workspace, type: string): Promise<boolean> {
  const [result] = await workspace.execute([
    {
      command: 'svc.entity/query',
      args: { query: { 'q/from': type, 'q/select': ['svc/id'], 'q/limit': 1 } },
    },
  ]);
  if (!result?.success) throw new Error(result ? result.error.message : 'query failed');
  return (result.result as unknown[]).length === 0;
}

/** The start job: account, schema, then one page job per type (in the transaction that records it). */
export async function startRun(ctx: SyncContext, job: StartJob): Promise<void> {
  const loaded = await load(ctx, job.runId);
  if (!loaded) return;
  const { run, source } = loaded;
  // Started already (this job ran before, and its process died after committing): nothing to do.
  if ((run.progress as RunProgress).types) return;
  // What runs that ended kept of the rows they sent (a page that landed after its run failed).
  await ctx.workspace.driver.query(
    `DELETE FROM weft_host_seen WHERE run_id IN (SELECT id FROM weft_host_runs WHERE status <> 'running')`,
  );
  const account = await ctx.refreshAccount(source, ctx.signal).catch((e) => {
    throw callError('validate', e);
  });
  const client = ctx.client(source.url);
  // What the reader took or left out (a field it could not read) is shown with the run.
  const read = await client.readSchema(source.types, source.filter, account, ctx.signal).catch((e) => {
    throw callError('schema', e);
  });
  const schema = read.value;
  const config = await client.config(account, ctx.signal).catch((e) => {
    throw callError('config', e);
  });
  const fingerprint = schemaFingerprint(config, schema);
  // The app offers something new since the last sync: every row is sent again (schema-fingerprint.ts).
  const offersNew = source.schema_fingerprint != null && source.schema_fingerprint !== fingerprint;
  const named = mapSchema(source.namespace, source.id, schema, source.types);
  // The first page of every type is asked for now, all at once as the service asks them, while
  // the tables are made: the page jobs take them (see firstPages), asked exactly as those jobs
  // would ask. Apps written for the service answer one type's first page only once every type of
  // the sync has asked for its own (they fetch everything upstream in one go): a page job per type,
  // as many at a time as the process reads, would wait on them forever.
  const since = offersNew ? null : sinceOf(run.last_synchronized_at);
  const requestOf = pageRequests({
    types: source.types,
    filter: source.filter,
    account,
    lastSynchronizedAt: since,
    operationId: run.id,
    schema: schema as Json,
  });
  for (const type of relationOrder(source.types, named)) {
    const request = requestOf(type, null);
    firstPages.hold(run.id, type, heldAs(request), ctx.signal, (signal) => askPage(client, request, signal));
  }
  const started = await setUp(ctx, run, source, { read, fingerprint, offersNew }).catch((error: unknown) => {
    firstPages.drop(run.id);
    throw error;
  });
  // Another start job started the run meanwhile: its page jobs may ask with other values.
  if (!started) firstPages.drop(run.id);
  else ctx.queue.wake(SYNC_PAGE);
}

/**
 * The rest of the start job: the run's tables, its plan, and a page job per type, sent in the
 * transaction that records them. False when the run was started already (or ended) meanwhile.
 */
async function setUp(
  ctx: SyncContext,
  run: RunRow,
  source: SourceRow,
  got: {
    read: Awaited<ReturnType<AppClient['readSchema']>>;
    fingerprint: string;
    offersNew: boolean;
  },
): Promise<boolean> {
  const { read, fingerprint, offersNew } = got;
  const schema = read.value;
  await pruneExchanges(ctx.workspace.driver, source.id);
  // Reverse fields made by earlier syncs keep their names, fields their shapes (kept-fields.ts).
  const setup = await readyForSchema(ctx.workspace, {
    namespace: source.namespace,
    sourceId: source.id,
    schema,
    types: source.types,
  });
  const { mapped, partners, kept } = setup;
  const warnings = [...read.warnings.map(formatWarning), ...setup.warnings].slice(0, MAX_WARNINGS);
  const fresh = new Set<string>();
  for (const t of mapped) if (await isEmpty(ctx.workspace, t.name)) fresh.add(t.appType);
  return ctx.workspace.driver.transaction(async (tx) => {
    const locked = await lockRunning(tx, run.id);
    if (!locked || (locked.progress as RunProgress).types) return false;
    await savePlan(tx, run.id, {
      schema,
      fingerprint,
      typeIds: source.types,
      ...(partners.size > 0 ? { partners: Object.fromEntries(partners) } : {}),
      ...(Object.keys(kept).length > 0 ? { kept } : {}),
    });
    const progress: RunProgress = {
      warnings,
      types: Object.fromEntries(
        source.types.map((t) => [
          t,
          { next: { page: 1, pagination: null }, ...(fresh.has(t) ? { fresh: true } : {}) },
        ]),
      ),
    };
    await tx.query(`UPDATE weft_host_runs SET progress = $2 WHERE id = $1`, [
      run.id,
      JSON.stringify(progress),
    ]);
    if (offersNew && locked.last_synchronized_at !== null)
      await tx.query(
        `UPDATE weft_host_runs SET last_synchronized_at = NULL, full_reason = $2 WHERE id = $1`,
        [run.id, FULL_SCHEMA_CHANGED],
      );
    // Relation targets first (type-order.ts): a worker free for one job takes the highest priority.
    const ordered = relationOrder(source.types, mapped);
    for (const [i, type] of ordered.entries()) {
      await ctx.queue.send<PageJob>(
        SYNC_PAGE,
        { runId: run.id, type, page: 1, pagination: null },
        { tx, priority: ordered.length - i },
      );
    }
    return true;
  });
}

type DataPage = Awaited<ReturnType<AppClient['data']>>;
type Outcome = ({ page: DataPage } | { error: unknown }) & { exchange?: Exchange };
/** A page asked for ahead of time: its answer or its error, never an unhandled rejection. */
type Fetched = Promise<Outcome>;
type PageRequest = Parameters<AppClient['dataPage']>[0];

/**
 * The data requests of one run's reading: a type's page at a pagination. The page jobs and the
 * start job (asking for first pages ahead) build theirs here, so both send the very same request,
 * its fields in the order the service sends them (requestedType first).
 */
const pageRequests =
  (run: Omit<PageRequest, 'requestedType' | 'pagination'>) =>
  (requestedType: string, pagination: Json | null): PageRequest => ({
    requestedType,
    types: run.types,
    filter: run.filter,
    account: run.account,
    pagination,
    lastSynchronizedAt: run.lastSynchronizedAt,
    operationId: run.operationId,
    ...(run.schema ? { schema: run.schema } : {}),
  });

/**
 * What a held first page is matched by: the request without its schema. A run's schema is the one
 * its plan holds; the start job sends it as read, a page job as stored (jsonb orders keys its own way).
 */
const heldAs = ({ schema: _, ...request }: PageRequest): string => JSON.stringify(request);

/** Asks the app for one page. The outcome keeps its exchange, recorded with the run. */
function askPage(client: AppClient, request: PageRequest, signal: AbortSignal): Fetched {
  return client.dataPage(request, { signal }).then(
    (outcome) =>
      outcome.kind === 'page'
        ? { page: outcome.page, exchange: outcome.exchange }
        : { error: outcome.error, exchange: outcome.exchange },
    (error: unknown) => ({ error }),
  );
}

/** The run's last synchronisation as the app receives it (null: a full sync). */
const sinceOf = (at: RunRow['last_synchronized_at']): string | null =>
  at ? new Date(at).toISOString() : null;

/**
 * First pages the start jobs in this process asked for, by run and type, for the page jobs that
 * read them (see held-answers.ts). The page job of a type the process reads first comes within
 * milliseconds; the others come as workers free up, after the types before them, so an answer is
 * held as long as a run's reading may take. The run's end, or its failure, drops what is left; past
 * the hold (a run this process no longer carries) the page job asks again.
 */
const FIRST_PAGE_HOLD_MS = 30 * 60_000;
const firstPages = new HeldAnswers<Outcome>(FIRST_PAGE_HOLD_MS);

/**
 * The page job: reads the type's pages one after another, each written and then recorded in one
 * transaction (progress, totals), for up to `ctx.pageJobMs`; then the job of the next page (or the
 * finish) is sent in the transaction of the last page recorded. While a page is written, the next
 * one is already asked for (read-ahead): its answer is held only in this job's memory, and
 * dropped if the job ends (another process asks again from the recorded pagination).
 *
 * While this job goes on, a page's record (one UPDATE) is not waited for: it runs while the next
 * page is written, and is waited for before anything else reads or writes the run's progress (the
 * next record, a retry, the end of the job). Rows are always written before the page that holds
 * them is recorded; a job that learns its record was refused (another job carries the type now, or
 * the run ended) stops having written at most one page more, which the job carrying the type
 * writes again (a write is the same whoever makes it).
 *
 * The progress records which job carries the type's pages (`job`: the page that job was sent for):
 * a job that died mid-way (its process stopped, its pages partly recorded) is tried again by
 * pg-boss with the same data, and resumes from the last recorded page; any other stale copy does
 * nothing.
 */
export async function runPage(ctx: SyncContext, job: PageJob): Promise<void> {
  // Its run is being failed here: nothing more is read.
  if (stops.get(job.runId)?.signal.aborted) return;
  const reading = readPages(ctx, job, stopOf(job.runId).signal);
  const under = active.get(job.runId) ?? new Set<Promise<void>>();
  active.set(job.runId, under);
  under.add(reading);
  try {
    await reading;
  } finally {
    under.delete(reading);
    if (under.size === 0) {
      active.delete(job.runId);
      if (!stops.get(job.runId)?.signal.aborted) stops.delete(job.runId);
    }
  }
}

async function readPages(ctx: SyncContext, job: PageJob, stopped: AbortSignal): Promise<void> {
  const loaded = await load(ctx, job.runId);
  if (!loaded) return;
  const { run, source } = loaded;
  const current = (run.progress as RunProgress).types?.[job.type];
  // Not (or no longer) the job carrying this type: a job run twice, whose work was recorded.
  if (!current?.next || (current.job ?? current.next.page) !== job.page) return;
  const plan = await loadPlan(ctx.workspace.driver, run);
  if (!plan) throw new Error(`Sync run ${run.id} has pages to read but no plan`);
  const policy = { ...DEFAULT_RETRY, ...ctx.retry };
  const client = ctx.client(source.url);
  const account = ctx.account(source);
  const typeIds = plan.typeIds ?? source.types;
  const started = Date.now();
  const exchanges = new ExchangeRecorder(
    ctx.workspace.driver,
    run.id,
    sourceSecrets(source, account),
    ctx.exchanged && ((exchange) => ctx.exchanged?.(source.id, exchange)),
  );
  const requestOf = pageRequests({
    types: typeIds,
    filter: source.filter,
    account,
    lastSynchronizedAt: sinceOf(run.last_synchronized_at),
    operationId: run.id,
    schema: plan.schema as Json,
  });
  const request = (pagination: Json | null): PageRequest => requestOf(job.type, pagination);
  const fetchPage = (pagination: Json | null): Fetched => askPage(client, request(pagination), ctx.signal);

  let at = current.next;
  let attempts = current.attempts ?? 0;
  /** this type's progress as this job, which carries it, last recorded it */
  let own: TypeProgress = { ...current };
  // The type's first page, asked for by the start job in this process (if it was, as asked here).
  let ahead: Fetched | undefined =
    at.page === 1 && at.pagination === null && attempts === 0
      ? firstPages.take(run.id, job.type, heldAs(request(null)))
      : undefined;
  /** the last page's record, under way: true once it is recorded, false when it was refused */
  let recording: Promise<boolean> | undefined;
  /** the last page write started, so that no write outlives its job */
  let lastWrite: Promise<unknown> | undefined;
  const recorded = async (): Promise<boolean> => {
    const r = recording;
    recording = undefined;
    return r ? r : true;
  };
  const pageWarnings: string[] = [];
  /** what the reader took leniently on this job's pages, said once per job rather than per page */
  const readerSaid = new Set<string>();
  /** values coerced by this type's pages so far (recorded with each page) */
  const coerced: Record<string, number> = { ...current.coerced };
  /** values stored empty by this type's pages so far (recorded with each page) */
  const unfit: Record<string, number> = { ...current.unfit };
  /** the counts as a type's progress records them (none while there are none) */
  const counts = (): Pick<TypeProgress, 'coerced' | 'unfit'> => ({
    ...(Object.keys(coerced).length > 0 ? { coerced: { ...coerced } } : {}),
    ...(Object.keys(unfit).length > 0 ? { unfit: { ...unfit } } : {}),
  });
  const withCounts = (tp: TypeProgress): TypeProgress => ({ ...tp, ...counts() });
  const wctx = writeContext(ctx, source, run, plan, { client, account, warnings: pageWarnings });
  const type = wctx.byAppType.get(job.type);
  if (!type) throw new Error(`Type ${job.type} is not in the schema of this run`);
  /**
   * Pages are written two at a time (the next page's rows are converted and checked while the
   * database stores the previous page's) where nothing in them depends on the page before: a
   * server (PGlite runs one statement at a time anyway) and a type that held no row when the run
   * began (a row sent on two pages is first created, then found; see writeRows), with only plain
   * values and relations (no options to add, no files to download and report).
   */
  const overlap =
    ctx.workspace.driver.kind === 'postgres' &&
    wctx.newTypes?.has(type.name) === true &&
    type.fields.every((f) => f.kind === 'primitive' || f.kind === 'relation');
  const pageEvent = (
    page: DataPage,
    from: typeof at,
    mode: 'full' | 'delta',
  ): SyncEvent & { kind: 'page' } => ({
    kind: 'page',
    type: job.type,
    page: from.page,
    pagination: from.pagination,
    ...page,
    synchronizationType: mode,
  });
  /**
   * The common case of recording a page, in one statement: this job goes on, nothing to send, no
   * warning to add. Only this type's entry changes (other types' jobs record theirs at the same
   * time), and only while the page is still the type's next one. False when it was not.
   */
  const record = async (
    tp: TypeProgress,
    event: SyncEvent & { kind: 'page' },
    set: number,
    removed: number,
  ): Promise<boolean> => {
    const { rows } = await ctx.workspace.driver.query<{
      pages: number;
      rows_set: number;
      rows_removed: number;
    }>(
      `UPDATE weft_host_runs SET pages = pages + 1, rows_set = rows_set + $3, rows_removed = rows_removed + $4,
         progress = jsonb_set(progress, ARRAY['types', $2::text], $5::jsonb)
       WHERE id = $1 AND status = 'running' AND progress #>> ARRAY['types', $2::text, 'next', 'page'] = $6
       RETURNING pages, rows_set, rows_removed`,
      [run.id, job.type, set, removed, JSON.stringify(withCounts(tp)), String(event.page)],
    );
    const r = rows[0];
    if (!r) {
      await countLanded(ctx, run.id, set, removed);
      return false;
    }
    ctx.emit(source.id, event, { pages: r.pages, rowsSet: r.rows_set, rowsRemoved: r.rows_removed });
    return true;
  };
  const pageLoop = async (): Promise<void> => {
    for (;;) {
      const fetched = await (ahead ?? fetchPage(at.pagination));
      ahead = undefined;
      if ('error' in fetched) {
        if (!ctx.signal.aborted) exchanges.add({ type: job.type, page: at.page }, fetched.exchange, fetched);
        if (!(await recorded())) return;
        const { error } = fetched;
        if (ctx.signal.aborted || !(error instanceof AppCallError) || !error.retryable) throw error;
        const attempt = attempts + 1;
        if (attempt >= policy.attempts) throw error;
        await retryLater(ctx, run, job, at, attempt, error, policy);
        return;
      }
      const { page } = fetched;
      exchanges.add({ type: job.type, page: at.page }, fetched.exchange, {
        items: page.items.length,
        warnings: page.warnings.map(formatWarning),
      });
      if (page.hasNext && JSON.stringify(page.nextPageConfig) === JSON.stringify(at.pagination)) {
        throw new AppCallError(
          'POST /api/v1/synchronizer/data: its nextPageConfig asks again for the same page (paging loop)',
          { path: '/api/v1/synchronizer/data', status: 200 },
        );
      }
      // Go on in this job while its time lasts; the next page is asked for while this one is written.
      const goOn =
        page.hasNext && Date.now() - started < ctx.pageJobMs && !ctx.signal.aborted && !stopped.aborted;
      if (goOn) ahead = fetchPage(page.nextPageConfig);
      pageWarnings.length = 0;
      for (const w of page.warnings) {
        const text = `${job.type}: ${formatWarning(w)}`;
        if (!readerSaid.has(text)) pageWarnings.push(text);
        readerSaid.add(text);
      }
      const { set, remove } = splitItems(page.items);
      const next = page.hasNext ? { page: at.page + 1, pagination: page.nextPageConfig } : undefined;
      // A page with rows to remove waits for the previous page (it may have created them).
      if (remove.length > 0 && !(await recorded())) return;
      // A full sync of a type that held rows marks the rows it sends, for removeUnsent at its end.
      const seen = !source.keep_unsynced && !own.fresh && (own.mode ?? page.synchronizationType) === 'full';
      const writing = (async () => {
        const written = await writeRows(wctx, type, set, { seen });
        addCounts(coerced, written.coerced);
        addCounts(unfit, written.unfit);
        const removed = remove.length > 0 ? await removeRows(wctx, type, remove) : 0;
        return { written, removed };
      })();
      // Its failure is seen where it is awaited; meanwhile it is no unhandled rejection.
      writing.catch(() => {});
      lastWrite = writing;
      if (overlap && next && goOn && pageWarnings.length === 0) {
        // Written while the previous page's write ends, recorded after it (see above).
        if (!(await recorded())) {
          await writing.catch(() => {});
          return;
        }
        const mode = own.mode ?? page.synchronizationType;
        const tp: TypeProgress = { ...own, mode, next, job: job.page };
        delete tp.attempts;
        const event = pageEvent(page, at, mode);
        recording = writing.then(({ written, removed }) => record(tp, event, written.set, removed));
        own = tp;
        at = next;
        attempts = 0;
        continue;
      }
      const { written, removed } = await writing;
      // The previous page is recorded before this one is.
      if (!(await recorded())) return;

      let totals: { pages: number; rowsSet: number; rowsRemoved: number } | undefined;
      let mode: 'full' | 'delta' = page.synchronizationType;
      let finished = false;
      if (next && goOn && pageWarnings.length === 0) {
        // The common case, in one statement: this job goes on, nothing to send, no warning to add.
        // Only this type's entry changes (other types' jobs record theirs at the same time), and
        // only while this page is still the type's next one.
        mode = own.mode ?? page.synchronizationType;
        const tp: TypeProgress = { ...own, mode, next, job: job.page };
        delete tp.attempts;
        // Not waited for here: the next page is written meanwhile (see above).
        recording = record(tp, pageEvent(page, at, mode), written.set, removed);
        // Taken as recorded: should it be refused, this job stops before using it.
        own = tp;
        at = next;
        attempts = 0;
        continue;
      } else {
        await ctx.workspace.driver.transaction(async (tx) => {
          const locked = await lockRunning(tx, run.id);
          const progress = locked?.progress as RunProgress | undefined;
          const tp = progress?.types?.[job.type];
          if (!locked || !progress?.types || !tp || tp.next?.page !== at.page) return;
          // The first page decides full or delta for the whole type.
          mode = tp.mode ?? page.synchronizationType;
          tp.mode = mode;
          Object.assign(tp, counts());
          delete tp.attempts;
          addWarnings(progress, pageWarnings);
          if (next) {
            tp.next = next;
            // Still carried by this job, or by the job sent now for the next page.
            if (goOn) tp.job = job.page;
            else delete tp.job;
          } else {
            delete tp.next;
            delete tp.job;
            tp.done = true;
          }
          totals = {
            pages: locked.pages + 1,
            rowsSet: locked.rows_set + written.set,
            rowsRemoved: locked.rows_removed + removed,
          };
          await tx.query(
            `UPDATE weft_host_runs SET pages = $2, rows_set = $3, rows_removed = $4, progress = $5 WHERE id = $1`,
            [run.id, totals.pages, totals.rowsSet, totals.rowsRemoved, JSON.stringify(progress)],
          );
          if (next && !goOn) {
            await ctx.queue.send<PageJob>(SYNC_PAGE, { runId: run.id, type: job.type, ...next }, { tx });
          } else if (!next && Object.values(progress.types).every((t) => t.done)) {
            finished = true;
            await ctx.queue.send<FinishJob>(SYNC_FINISH, { runId: run.id }, { tx });
          }
          own = { ...tp };
        });
      }
      // Recorded by another job meanwhile (this one outlived its expiry), or the run ended: stop.
      if (!totals) {
        await countLanded(ctx, run.id, written.set, removed);
        return;
      }
      ctx.emit(
        source.id,
        {
          kind: 'page',
          type: job.type,
          page: at.page,
          pagination: at.pagination,
          ...page,
          synchronizationType: mode,
        },
        totals,
      );
      if (!next)
        ctx.emit(
          source.id,
          { kind: 'done', type: job.type, pages: at.page, synchronizationType: mode },
          totals,
        );
      if (!goOn || !next) {
        if (next || finished) ctx.queue.wake(finished ? SYNC_FINISH : SYNC_PAGE);
        return;
      }
      at = next;
      attempts = 0;
    }
  };
  try {
    await pageLoop();
  } catch (error) {
    throw callError(`data of type ${job.type}, page ${at.page}`, error);
  } finally {
    // A job that throws still lets its last write and record land before the error fails the run.
    await lastWrite?.catch(() => {});
    await recording?.catch(() => {});
    await exchanges.flush();
  }
}

/** tryLater (or no answer): the same page again later, as a job of its own. */
async function retryLater(
  ctx: SyncContext,
  run: RunRow,
  job: PageJob,
  at: { page: number; pagination: Json | null },
  attempt: number,
  error: AppCallError,
  policy: Parameters<typeof retryDelay>[0],
): Promise<void> {
  const delayMs = retryDelay(policy, attempt, error);
  let counts = { pages: run.pages, rowsSet: run.rows_set, rowsRemoved: run.rows_removed };
  let sent = false;
  await ctx.workspace.driver.transaction(async (tx) => {
    const locked = await lockRunning(tx, run.id);
    const progress = locked?.progress as RunProgress | undefined;
    const tp = progress?.types?.[job.type];
    if (!locked || !progress || tp?.next?.page !== at.page) return;
    tp.attempts = attempt;
    delete tp.job;
    counts = { pages: locked.pages, rowsSet: locked.rows_set, rowsRemoved: locked.rows_removed };
    await tx.query(`UPDATE weft_host_runs SET retries = $2, progress = $3 WHERE id = $1`, [
      run.id,
      locked.retries + 1,
      JSON.stringify(progress),
    ]);
    await ctx.queue.send<PageJob>(
      SYNC_PAGE,
      { runId: run.id, type: job.type, page: at.page, pagination: at.pagination },
      { tx, startAfterSeconds: delayMs / 1000 },
    );
    sent = true;
  });
  if (!sent) return;
  // Workers poll; this process looks again when the delay is over (any process may take it).
  setTimeout(() => ctx.queue.wake(SYNC_PAGE, { always: true }), delayMs + 20).unref();
  const message = error.appMessage ?? error.message;
  ctx.emit(
    run.source_id,
    { kind: 'retry', type: job.type, page: at.page, attempt, delayMs, message },
    counts,
  );
}

/** The finish job: what needs every page (relations, removal of rows not sent), then the run's record. */
export async function finishRun(ctx: SyncContext, job: FinishJob): Promise<void> {
  // Every type was read: a first page still held here was asked again by a job elsewhere.
  firstPages.drop(job.runId);
  const loaded = await load(ctx, job.runId);
  if (!loaded) return;
  const { run, source } = loaded;
  const progress = run.progress as RunProgress;
  const plan = await loadPlan(ctx.workspace.driver, run);
  if (!plan) throw new Error(`Sync run ${run.id} is to finish but has no plan`);
  const wctx = writeContext(ctx, source, run, plan);
  const unresolved = await resolveLinks(wctx);
  const typeIds = plan.typeIds ?? source.types;
  const modes = typeIds.map((t) => progress.types?.[t]?.mode ?? 'full');
  let removed = 0;
  if (!source.keep_unsynced) {
    for (const t of typeIds) {
      const tp = progress.types?.[t];
      // A type that held no row when the run started holds none older than it: nothing to look
      // for (the look is a scan of every row of the type).
      if (tp?.mode !== 'full' || tp.fresh) continue;
      removed += await removeUnsent(
        ctx.workspace,
        (wctx.byAppType.get(t) as MappedType).name,
        run.id,
        new Date(run.started_at).toISOString(),
      );
    }
  }
  await forgetSeen(ctx.workspace, run.id);
  const warnings = [...(progress.warnings ?? []), ...dataWarnings(progress, wctx.byAppType, unresolved)];
  if (progress.moreWarnings) warnings.push(`${progress.moreWarnings} more warnings`);
  // The source's fingerprint commits with the run's success: whoever sees the run succeeded (a
  // waiter, the next sync's start job) sees what it was synced with.
  await ctx.workspace.driver.transaction(async (tx) => {
    const { rows } = await tx.query(
      `UPDATE weft_host_runs SET status = 'succeeded', mode = $2, finished_at = clock_timestamp(),
         duration_ms = (extract(epoch FROM clock_timestamp() - started_at) * 1000)::int,
         rows_removed = rows_removed + $3, error = $4
       WHERE id = $1 AND status = 'running' RETURNING id`,
      [
        run.id,
        modes.every((m) => m === 'delta') ? 'delta' : 'full',
        removed,
        warnings.length > 0 ? warnings.join('; ') : null,
      ],
    );
    if (plan.fingerprint && rows.length > 0)
      await tx.query(`UPDATE weft_host_sources SET schema_fingerprint = $2 WHERE id = $1`, [
        source.id,
        plan.fingerprint,
      ]);
  });
  ctx.ended?.(run.id);
}

/**
 * A sync job failed for good without its handler failing the run: its process died (or stopped)
 * during each of its tries. The run is failed with a message that says so, when that job was
 * still the one its run waited for (a stale copy of a page job, whose page was recorded by
 * another, changes nothing). Rows written so far stay, and nothing is removed.
 */
export async function abandonRun(ctx: SyncContext, job: DeadJob, tries: number): Promise<void> {
  const run = await getRun(ctx.workspace.driver, job.runId);
  if (run?.status !== 'running') return;
  const progress = run.progress as RunProgress;
  let what: string;
  if ('type' in job) {
    const tp = progress.types?.[job.type];
    if (!tp?.next || (tp.job ?? tp.next.page) !== job.page) return;
    what = `the job reading ${job.type} (from page ${job.page})`;
  } else if (!progress.types) what = 'the job starting it';
  else if (Object.values(progress.types).every((t) => t.done)) what = 'the job finishing it';
  else return;
  await failRun(
    ctx,
    run.id,
    new Error(`${what} did not end after ${tries} tries (its process stopped or died each time)`),
  );
}
