import {
  AppCallError,
  type AppClient,
  readTypes,
  type RetryPolicy,
  type SyncEvent,
  splitItems,
} from '@weft/sync-engine';
import type { Workspace } from '../workspace.js';
import { applySchema } from './apply-schema.js';
import { applyFieldLabels } from './field-labels.js';
import { type MappedType, mapSchema } from './schema-mapping.js';
import type { RunRow, SourceRow } from './source-store.js';
import { removeRows, removeUnsent, resolveLinks, type WriteContext, writeRows } from './write-rows.js';

// One sync run of a source, as the service runs it: validate the account, read the schema and
// create what is missing, read every selected type concurrently page by page and write each page
// as it arrives, then set relations and (full sync) remove rows not sent. Progress is written to
// the run row after every page, so a run cut short resumes from its next page. An error fails the
// run: rows already written stay, and nothing is removed.

type Json = Record<string, unknown>;

export interface TypeProgress {
  /** the next page to read and the pagination that asks for it; absent when the type is done */
  next?: { page: number; pagination: Json | null };
  done?: boolean;
  mode?: 'full' | 'delta';
}

export interface RunProgress {
  types?: Record<string, TypeProgress>;
}

export interface SyncRunInput {
  workspace: Workspace;
  client: AppClient;
  source: SourceRow;
  run: RunRow;
  account: Json;
  retry?: RetryPolicy;
  onEvent?: (event: SyncEvent, run: { pages: number; rowsSet: number; rowsRemoved: number }) => void;
  signal?: AbortSignal;
}

export interface SyncRunResult {
  pages: number;
  rowsSet: number;
  rowsRemoved: number;
  retries: number;
  mode: 'full' | 'delta';
  warnings: string[];
}

/** A message safe to store and show: the app's own message or a generic one, never a request body. */
export function safeMessage(error: unknown): string {
  if (error instanceof AppCallError) return error.message;
  if (error instanceof Error && /^(Stored account|Type |Field |commands\[)/.test(error.message))
    return error.message;
  if (error instanceof Error && error.name === 'AbortError') return 'The sync was stopped';
  return error instanceof Error ? `Sync failed: ${error.message.slice(0, 300)}` : 'Sync failed';
}

export async function syncSource(input: SyncRunInput): Promise<SyncRunResult> {
  const { workspace, client, source, run, account } = input;
  const { driver } = workspace;
  const types = source.types;
  const schema = await client.schema(types, source.filter, account, input.signal);
  const mapped = mapSchema(source.namespace, source.id, schema, types);
  const warnings = await applySchema(workspace, mapped);
  await applyFieldLabels(workspace, schema, mapped);
  const byAppType = new Map<string, MappedType>(mapped.map((t) => [t.appType, t]));
  const ctx: WriteContext = {
    workspace,
    sourceId: source.id,
    runId: run.id,
    types: byAppType,
    options: new Map(),
    // Files referenced as app://resource are fetched through the app; failed files become warnings.
    app: { client, account, filter: source.filter, types },
    warnings,
    ...(input.signal ? { signal: input.signal } : {}),
  };

  const progress: RunProgress = structuredClone(run.progress ?? {}) as RunProgress;
  progress.types ??= {};
  const pending = types.filter((t) => !progress.types?.[t]?.done);
  const resumeFrom: Record<string, { page: number; pagination: Json | null }> = {};
  for (const t of pending) {
    const next = progress.types[t]?.next;
    if (next) resumeFrom[t] = next;
  }
  const totals = {
    pages: run.pages,
    rowsSet: run.rows_set,
    rowsRemoved: run.rows_removed,
    retries: run.retries,
  };
  const lastSynchronizedAt = run.last_synchronized_at
    ? new Date(run.last_synchronized_at).toISOString()
    : null;

  for await (const event of readTypes(client, {
    types: pending,
    filter: source.filter,
    account,
    lastSynchronizedAt,
    operationId: run.id,
    resumeFrom,
    ...(input.retry ? { retry: input.retry } : {}),
    ...(input.signal ? { signal: input.signal } : {}),
  })) {
    const types = progress.types as Record<string, TypeProgress>;
    types[event.type] ??= {};
    const tp = types[event.type] as TypeProgress;
    if (event.kind === 'retry') totals.retries++;
    if (event.kind === 'page') {
      const type = byAppType.get(event.type) as MappedType;
      const { set, remove } = splitItems(event.items);
      const written = await writeRows(ctx, type, set);
      const removed = remove.length > 0 ? await removeRows(ctx, type, remove) : 0;
      totals.pages++;
      totals.rowsSet += written.set;
      totals.rowsRemoved += removed;
      tp.mode = event.synchronizationType;
      tp.next = event.hasNext ? { page: event.page + 1, pagination: event.nextPageConfig } : undefined;
    }
    if (event.kind === 'done') {
      tp.done = true;
      tp.mode = event.synchronizationType;
      delete tp.next;
    }
    await driver.query(
      `UPDATE weft_host_runs SET pages = $2, rows_set = $3, rows_removed = $4, retries = $5, progress = $6 WHERE id = $1`,
      [run.id, totals.pages, totals.rowsSet, totals.rowsRemoved, totals.retries, JSON.stringify(progress)],
    );
    input.onEvent?.(event, totals);
  }

  await resolveLinks(ctx);
  const modes = types.map((t) => progress.types?.[t]?.mode ?? 'full');
  if (!source.keep_unsynced) {
    for (const t of types) {
      if (progress.types[t]?.mode !== 'full') continue;
      totals.rowsRemoved += await removeUnsent(
        workspace,
        (byAppType.get(t) as MappedType).name,
        new Date(run.started_at).toISOString(),
      );
    }
  }
  return { ...totals, mode: modes.every((m) => m === 'delta') ? 'delta' : 'full', warnings };
}
