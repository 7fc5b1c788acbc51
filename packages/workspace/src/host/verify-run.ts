import { randomUUID } from 'node:crypto';
import {
  type AppClient,
  DigestTable,
  DriftCheck,
  describeDrift,
  hasDrift,
  itemAction,
  readType,
  type TypeDrift,
} from '@weft/sync-engine';
import { redact } from '@weft/core/redact';
import { WorkspaceError } from '../errors.js';
import type { Workspace } from '../workspace.js';
import { entityId } from './entity-ids.js';
import { mapOntoWorkspace } from './kept-fields.js';
import { getRun, type RunRow, type SourceRow } from './source-store.js';
import { sourceSecrets } from './run-exchanges.js';
import { safeMessage } from './sync-run.js';
import { comparedType } from './verify-values.js';

// Verify: does the workspace still hold what the app has? A full sync read into a shadow (nothing
// applied), compared per id and value with the rows the syncs (full, delta, webhooks) left in the
// workspace: the drift property of docs/drift.md, on the engine's digests (ids and values hashed,
// one page of the app and one of the workspace in memory). The result is recorded as a run of
// kind `verify`, which is no sync: it sets no `lastSynchronizedAt` and delays no scheduled sync.

type Json = Record<string, unknown>;

export const VERIFY_KIND = 'verify';
const WORKSPACE_PAGE = 2000;

export interface VerifyContext {
  workspace: Workspace;
  client(url: string): AppClient;
  /** the account as the app receives it */
  account(source: SourceRow): Json;
  signal?: AbortSignal;
}

/** What a verify run records (in its progress, shown as the run's `verify`). */
export interface VerifyOutcome {
  drifted: boolean;
  types: TypeDrift[];
}

async function query(workspace: Workspace, q: Json, params?: Json): Promise<Json[]> {
  const [result] = await workspace.execute([
    { command: 'svc.entity/query', args: { query: q, ...(params ? { params } : {}) } },
  ]);
  if (!result?.success) throw new Error(result ? result.error.message : 'query failed');
  return result.result as Json[];
}

/** Every row of a workspace type, a page at a time, in id order. */
async function eachStored(workspace: Workspace, type: string, select: unknown[], fn: (row: Json) => void) {
  let after: string | undefined;
  for (;;) {
    const rows = await query(
      workspace,
      {
        'q/from': type,
        'q/select': select,
        ...(after ? { 'q/where': ['>', ['svc/id'], '$after'] } : {}),
        'q/order-by': [[['svc/id'], 'q/asc']],
        'q/limit': WORKSPACE_PAGE,
      },
      after ? { $after: after } : undefined,
    );
    for (const row of rows) fn(row);
    if (rows.length < WORKSPACE_PAGE) return;
    after = String(rows.at(-1)?.['svc/id']);
  }
}

/** The stored values of the sampled changed rows, so that a drift shows both sides. */
async function fillExpected(
  workspace: Workspace,
  type: string,
  select: unknown[],
  drift: TypeDrift,
  uuids: Map<string, string>,
  fromWorkspace: (e: Json) => Json,
): Promise<void> {
  const samples = drift.samples.changed;
  if (samples.length === 0) return;
  const rows = await query(
    workspace,
    { 'q/from': type, 'q/select': select, 'q/where': ['q/in', ['svc/id'], '$ids'], 'q/limit': 'q/no-limit' },
    { $ids: samples.map((s) => uuids.get(s.id) as string) },
  );
  const byId = new Map(rows.map((r) => [String(r['svc/id']), fromWorkspace(r)]));
  for (const s of samples) {
    const stored = byId.get(uuids.get(s.id) as string);
    if (stored) s.expected = Object.fromEntries((s.fields ?? []).map((f) => [f, stored[f] ?? null]));
  }
}

async function compare(
  ctx: VerifyContext,
  source: SourceRow,
  runId: string,
): Promise<VerifyOutcome & { pages: number }> {
  const client = ctx.client(source.url);
  const account = ctx.account(source);
  const schema = await client.schema(source.types, source.filter, account, ctx.signal);
  const { mapped } = await mapOntoWorkspace(ctx.workspace, {
    namespace: source.namespace,
    sourceId: source.id,
    schema,
    types: source.types,
  });
  let pages = 0;
  // Every type is read at once, as the service reads a sync's types: apps that fetch all types
  // upstream in one go answer a type's first page only once every type has asked for its own.
  // Each type's stored rows are digested first, so the reading waits on no database work.
  const states = [];
  for (const type of mapped) {
    const compared = comparedType(type);
    const state = new DigestTable(compared.fields);
    await eachStored(ctx.workspace, type.name, compared.select, (row) => {
      const title = row[compared.titleField];
      const id = String(row['svc/id']);
      state.set(id, compared.fromWorkspace(row), false, title ? `${id} (${String(title).slice(0, 40)})` : id);
    });
    states.push({ type, compared, check: new DriftCheck(type.appType, state) });
  }
  await Promise.all(
    states.map(async ({ type, compared, check }) => {
      for await (const event of readType(client, {
        type: type.appType,
        types: source.types,
        filter: source.filter,
        account,
        lastSynchronizedAt: null,
        operationId: runId,
        schema,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      })) {
        if (event.kind !== 'page') continue;
        pages++;
        for (const item of event.items) {
          const what = itemAction(item);
          if (what.action !== 'set') continue;
          check.see(entityId(source.id, type.appType, what.id), compared.fromApp(what.row), what.id);
        }
      }
    }),
  );
  const types: TypeDrift[] = [];
  for (const { type, compared, check } of states) {
    const drift = check.finish();
    // The workspace ids of the sampled changed rows, to look their stored values up.
    const uuids = new Map(drift.samples.changed.map((s) => [s.id, entityId(source.id, type.appType, s.id)]));
    await fillExpected(ctx.workspace, type.name, compared.select, drift, uuids, compared.fromWorkspace);
    types.push(drift);
  }
  return { drifted: types.some(hasDrift), types, pages };
}

/**
 * Verifies a source and records the outcome as a run of kind `verify`: succeeded (with what
 * drifted, if anything) or failed (the app's error). Refused while a sync of the source runs (its
 * rows are half written).
 */
export async function verifySource(ctx: VerifyContext, source: SourceRow): Promise<RunRow> {
  const { rows: running } = await ctx.workspace.driver.query(
    `SELECT 1 FROM weft_host_runs WHERE source_id = $1 AND status = 'running' AND kind <> 'webhook'`,
    [source.id],
  );
  if (running.length > 0)
    throw new WorkspaceError(409, 'conflict', 'A sync of this source is running: verify it once it ends');
  const runId = randomUUID();
  const startedAt = new Date();
  let outcome: (VerifyOutcome & { pages: number }) | undefined;
  let failure: string | undefined;
  try {
    outcome = await compare(ctx, source, runId);
  } catch (error) {
    // An app may echo the account in its error: its secrets are redacted before it is kept.
    failure = redact(safeMessage(error), sourceSecrets(source, ctx.account(source)));
  }
  const summary = outcome?.drifted
    ? outcome.types
        .filter(hasDrift)
        .map((d) => describeDrift(d, 'the syncs'))
        .join('; ')
    : null;
  await ctx.workspace.driver.query(
    `INSERT INTO weft_host_runs (id, source_id, kind, status, mode, started_at, finished_at, duration_ms,
       pages, error, progress)
     VALUES ($1, $2, $3, $4, 'full', $5, clock_timestamp(),
       (extract(epoch FROM clock_timestamp() - $5::timestamptz) * 1000)::int, $6, $7, $8)`,
    [
      runId,
      source.id,
      VERIFY_KIND,
      outcome ? 'succeeded' : 'failed',
      startedAt.toISOString(),
      outcome?.pages ?? 0,
      failure ?? summary,
      JSON.stringify(outcome ? { verify: { drifted: outcome.drifted, types: outcome.types } } : {}),
    ],
  );
  return (await getRun(ctx.workspace.driver, runId)) as RunRow;
}
