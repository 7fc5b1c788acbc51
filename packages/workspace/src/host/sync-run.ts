import {
  AppCallError,
  type AppClient,
  DEFAULT_RETRY,
  type RetryPolicy,
  retryDelay,
  type SyncEvent,
  splitItems,
} from '@weft/sync-engine';
import type { Queryable } from '../db/driver.js';
import type { JobQueue } from '../jobs/job-queue.js';
import type { Workspace } from '../workspace.js';
import { applySchema } from './apply-schema.js';
import { applyFieldLabels } from './field-labels.js';
import { type MappedType, mapSchema } from './schema-mapping.js';
import { getRun, getSource, type RunRow, type SourceRow } from './source-store.js';
import { removeRows, removeUnsent, resolveLinks, type WriteContext, writeRows } from './write-rows.js';

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

export interface TypeProgress {
  /** the next page to read and the pagination that asks for it; absent when the type is done */
  next?: { page: number; pagination: Json | null };
  done?: boolean;
  mode?: 'full' | 'delta';
  /** failed attempts at the next page so far */
  attempts?: number;
}

export interface RunProgress {
  /** the app's schema answer, read once by the start job (every page maps its rows with it) */
  schema?: unknown;
  /** the types of this run, as the source had them when it started */
  typeIds?: string[];
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
}

/** A message safe to store and show: the app's own message or a generic one, never a request body. */
export function safeMessage(error: unknown): string {
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

export async function failRun(ctx: SyncContext, runId: string, error: unknown): Promise<void> {
  await ctx.workspace.driver.query(
    `UPDATE weft_host_runs SET status = 'failed', finished_at = clock_timestamp(),
       duration_ms = (extract(epoch FROM clock_timestamp() - started_at) * 1000)::int, error = $2
     WHERE id = $1 AND status = 'running'`,
    [runId, safeMessage(error)],
  );
}

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
  page?: { client: AppClient; account: Json; warnings: string[] },
): WriteContext & { byAppType: Map<string, MappedType> } {
  const progress = run.progress as RunProgress;
  const typeIds = progress.typeIds ?? source.types;
  const mapped = mapSchema(source.namespace, source.id, progress.schema as never, typeIds);
  const byAppType = new Map<string, MappedType>(mapped.map((t) => [t.appType, t]));
  return {
    workspace: ctx.workspace,
    sourceId: source.id,
    runId: run.id,
    types: byAppType,
    options: new Map(),
    byAppType,
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

/** The start job: account, schema, then one page job per type (in the transaction that records it). */
export async function startRun(ctx: SyncContext, job: StartJob): Promise<void> {
  const loaded = await load(ctx, job.runId);
  if (!loaded) return;
  const { run, source } = loaded;
  // Started already (this job ran before, and its process died after committing): nothing to do.
  if ((run.progress as RunProgress).types) return;
  const account = await ctx.refreshAccount(source, ctx.signal);
  const client = ctx.client(source.url);
  const schema = await client.schema(source.types, source.filter, account, ctx.signal);
  const mapped = mapSchema(source.namespace, source.id, schema, source.types);
  const warnings = await applySchema(ctx.workspace, mapped);
  await applyFieldLabels(ctx.workspace, schema, mapped);
  await ctx.workspace.driver.transaction(async (tx) => {
    const locked = await lockRunning(tx, run.id);
    if (!locked || (locked.progress as RunProgress).types) return;
    const progress: RunProgress = {
      schema,
      typeIds: source.types,
      warnings,
      types: Object.fromEntries(source.types.map((t) => [t, { next: { page: 1, pagination: null } }])),
    };
    await tx.query(`UPDATE weft_host_runs SET progress = $2 WHERE id = $1`, [
      run.id,
      JSON.stringify(progress),
    ]);
    for (const type of source.types) {
      await ctx.queue.send<PageJob>(SYNC_PAGE, { runId: run.id, type, page: 1, pagination: null }, { tx });
    }
  });
  ctx.queue.wake(SYNC_PAGE);
}

/** The page job: one page read, written, recorded; the next page (or the finish) sent. */
export async function runPage(ctx: SyncContext, job: PageJob): Promise<void> {
  const loaded = await load(ctx, job.runId);
  if (!loaded) return;
  const { run, source } = loaded;
  const current = (run.progress as RunProgress).types?.[job.type];
  // This page was recorded already (a job run twice after its process died): nothing to do.
  if (current?.next?.page !== job.page) return;
  const policy = { ...DEFAULT_RETRY, ...ctx.retry };
  const client = ctx.client(source.url);
  const account = ctx.account(source);
  const typeIds = (run.progress as RunProgress).typeIds ?? source.types;
  let page: Awaited<ReturnType<AppClient['data']>>;
  try {
    page = await client.data(
      {
        requestedType: job.type,
        types: typeIds,
        filter: source.filter,
        account,
        pagination: job.pagination,
        lastSynchronizedAt: run.last_synchronized_at
          ? new Date(run.last_synchronized_at).toISOString()
          : null,
        operationId: run.id,
      },
      ctx.signal,
    );
  } catch (error) {
    if (ctx.signal.aborted || !(error instanceof AppCallError) || !error.retryable) throw error;
    const attempt = (current.attempts ?? 0) + 1;
    if (attempt >= policy.attempts) throw error;
    // tryLater (or no answer): the same page again later, as a job of its own.
    const delayMs = retryDelay(policy, attempt, error);
    let retries = run.retries;
    await ctx.workspace.driver.transaction(async (tx) => {
      const locked = await lockRunning(tx, run.id);
      const progress = locked?.progress as RunProgress | undefined;
      const tp = progress?.types?.[job.type];
      if (!locked || !progress || tp?.next?.page !== job.page) return;
      tp.attempts = attempt;
      retries = locked.retries + 1;
      await tx.query(`UPDATE weft_host_runs SET retries = $2, progress = $3 WHERE id = $1`, [
        run.id,
        retries,
        JSON.stringify(progress),
      ]);
      await ctx.queue.send<PageJob>(SYNC_PAGE, job, { tx, startAfterSeconds: delayMs / 1000 });
    });
    // Workers poll; this process looks again when the delay is over (any process may take it).
    setTimeout(() => ctx.queue.wake(SYNC_PAGE), delayMs + 20).unref();
    const message = error.appMessage ?? error.message;
    ctx.emit(
      source.id,
      { kind: 'retry', type: job.type, page: job.page, attempt, delayMs, message },
      { pages: run.pages, rowsSet: run.rows_set, rowsRemoved: run.rows_removed },
    );
    return;
  }
  if (page.hasNext && JSON.stringify(page.nextPageConfig) === JSON.stringify(job.pagination)) {
    throw new AppCallError(`${job.type}: page ${job.page} asks again for the same page (paging loop)`, {
      path: '/api/v1/synchronizer/data',
      status: 200,
    });
  }
  const pageWarnings: string[] = [];
  const wctx = writeContext(ctx, source, run, { client, account, warnings: pageWarnings });
  const type = wctx.byAppType.get(job.type);
  if (!type) throw new Error(`Type ${job.type} is not in the schema of this run`);
  const { set, remove } = splitItems(page.items);
  const written = await writeRows(wctx, type, set);
  const removed = remove.length > 0 ? await removeRows(wctx, type, remove) : 0;

  let totals: { pages: number; rowsSet: number; rowsRemoved: number } | undefined;
  let mode: 'full' | 'delta' = page.synchronizationType;
  let finished = false;
  await ctx.workspace.driver.transaction(async (tx) => {
    const locked = await lockRunning(tx, run.id);
    const progress = locked?.progress as RunProgress | undefined;
    const tp = progress?.types?.[job.type];
    if (!locked || !progress?.types || !tp || tp.next?.page !== job.page) return;
    // The first page decides full or delta for the whole type.
    mode = tp.mode ?? page.synchronizationType;
    tp.mode = mode;
    delete tp.attempts;
    addWarnings(progress, pageWarnings);
    if (page.hasNext) tp.next = { page: job.page + 1, pagination: page.nextPageConfig };
    else {
      delete tp.next;
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
    if (page.hasNext) {
      await ctx.queue.send<PageJob>(
        SYNC_PAGE,
        { runId: run.id, type: job.type, page: job.page + 1, pagination: page.nextPageConfig },
        { tx },
      );
    } else if (Object.values(progress.types).every((t) => t.done)) {
      finished = true;
      await ctx.queue.send<FinishJob>(SYNC_FINISH, { runId: run.id }, { tx });
    }
  });
  if (!totals) return;
  ctx.emit(
    source.id,
    {
      kind: 'page',
      type: job.type,
      page: job.page,
      pagination: job.pagination,
      ...page,
      synchronizationType: mode,
    },
    totals,
  );
  if (!page.hasNext)
    ctx.emit(source.id, { kind: 'done', type: job.type, pages: job.page, synchronizationType: mode }, totals);
  ctx.queue.wake(finished ? SYNC_FINISH : SYNC_PAGE);
}

/** The finish job: what needs every page (relations, removal of rows not sent), then the run's record. */
export async function finishRun(ctx: SyncContext, job: FinishJob): Promise<void> {
  const loaded = await load(ctx, job.runId);
  if (!loaded) return;
  const { run, source } = loaded;
  const progress = run.progress as RunProgress;
  const wctx = writeContext(ctx, source, run);
  await resolveLinks(wctx);
  const typeIds = progress.typeIds ?? source.types;
  const modes = typeIds.map((t) => progress.types?.[t]?.mode ?? 'full');
  let removed = 0;
  if (!source.keep_unsynced) {
    for (const t of typeIds) {
      if (progress.types?.[t]?.mode !== 'full') continue;
      removed += await removeUnsent(
        ctx.workspace,
        (wctx.byAppType.get(t) as MappedType).name,
        new Date(run.started_at).toISOString(),
      );
    }
  }
  const warnings = [...(progress.warnings ?? [])];
  if (progress.moreWarnings) warnings.push(`${progress.moreWarnings} more warnings`);
  await ctx.workspace.driver.query(
    `UPDATE weft_host_runs SET status = 'succeeded', mode = $2, finished_at = clock_timestamp(),
       duration_ms = (extract(epoch FROM clock_timestamp() - started_at) * 1000)::int,
       rows_removed = rows_removed + $3, error = $4
     WHERE id = $1 AND status = 'running'`,
    [
      run.id,
      modes.every((m) => m === 'delta') ? 'delta' : 'full',
      removed,
      warnings.length > 0 ? warnings.join('; ') : null,
    ],
  );
}
