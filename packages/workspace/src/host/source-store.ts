import type { Queryable } from '../db/driver.js';

// Rows of weft_host_sources and weft_host_runs, and their public views. A view never carries
// account values: only the account's name and its authentication id.

type Json = Record<string, unknown>;

export interface SourceRow {
  id: string;
  url: string;
  namespace: string;
  name: string;
  descriptor: Json;
  logo: string | null;
  auth_id: string;
  account_name: string | null;
  account_enc: string | null;
  types: string[];
  filter: Json;
  keep_unsynced: boolean;
  interval_seconds: number | null;
  webhook: Json | null;
  webhooks_enabled: boolean;
  created_at: string | Date;
  /** verify-schedule.ts */
  verify_every_seconds?: number | null;
  /** schema-fingerprint.ts */
  schema_fingerprint?: string | null;
}

export interface RunRow {
  id: string;
  source_id: string;
  kind: string;
  status: 'running' | 'succeeded' | 'failed';
  mode: string | null;
  last_synchronized_at: string | Date | null;
  started_at: string | Date;
  finished_at: string | Date | null;
  pages: number;
  rows_set: number;
  rows_removed: number;
  retries: number;
  error: string | null;
  duration_ms: number | null;
  progress: Json;
  /** why the run is full when it was made so (schema-fingerprint.ts) */
  full_reason?: string | null;
}

const iso = (v: string | Date | null) => (v === null ? null : new Date(v).toISOString());

/** Each type's mode as the app's first page of it answered (a run is `full` when any type was). */
export function typeModes(progress: Json | undefined): Record<string, string> | undefined {
  const types = progress?.types as Record<string, { mode?: string }> | undefined;
  if (!types) return undefined;
  const modes = Object.entries(types).filter(([, t]) => t.mode !== undefined);
  return modes.length > 0 ? Object.fromEntries(modes.map(([id, t]) => [id, t.mode as string])) : undefined;
}

export function sourceView(s: SourceRow) {
  return {
    id: s.id,
    url: s.url,
    name: s.name,
    namespace: s.namespace,
    authId: s.auth_id,
    accountName: s.account_name,
    hasLogo: s.logo !== null,
    types: s.types,
    filter: s.filter,
    keepUnsynced: s.keep_unsynced,
    intervalSeconds: s.interval_seconds,
    webhooksEnabled: s.webhooks_enabled,
    webhook: s.webhook ? { id: s.webhook.id ?? null } : null,
    verifyEverySeconds: s.verify_every_seconds ?? null,
    createdAt: iso(s.created_at),
  };
}

export function runView(r: RunRow) {
  return {
    id: r.id,
    sourceId: r.source_id,
    kind: r.kind,
    status: r.status,
    mode: r.mode,
    fullReason: r.full_reason ?? null,
    lastSynchronizedAt: iso(r.last_synchronized_at),
    startedAt: iso(r.started_at),
    finishedAt: iso(r.finished_at),
    pages: r.pages,
    rowsSet: r.rows_set,
    rowsRemoved: r.rows_removed,
    retries: r.retries,
    error: r.error,
    durationMs: r.duration_ms,
    ...(typeModes(r.progress) ? { typeModes: typeModes(r.progress) } : {}),
    // A verify run (verify-run.ts): what drifted, per type.
    ...(r.progress?.verify ? { verify: r.progress.verify } : {}),
  };
}

export async function getSource(q: Queryable, id: string): Promise<SourceRow | undefined> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined;
  const { rows } = await q.query<SourceRow>(`SELECT * FROM weft_host_sources WHERE id = $1`, [id]);
  return rows[0];
}

export async function listSources(q: Queryable): Promise<SourceRow[]> {
  return (await q.query<SourceRow>(`SELECT * FROM weft_host_sources ORDER BY created_at, id`)).rows;
}

export async function getRun(q: Queryable, id: string): Promise<RunRow | undefined> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined;
  return (await q.query<RunRow>(`SELECT * FROM weft_host_runs WHERE id = $1`, [id])).rows[0];
}

/** Only the run's status (what a waiter polls for): no progress to read and parse. */
export async function runStatus(q: Queryable, id: string): Promise<RunRow['status'] | undefined> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined;
  const { rows } = await q.query<{ status: RunRow['status'] }>(
    `SELECT status FROM weft_host_runs WHERE id = $1`,
    [id],
  );
  return rows[0]?.status;
}

export async function listRuns(q: Queryable, sourceId: string, limit = 50): Promise<RunRow[]> {
  return (
    await q.query<RunRow>(
      `SELECT * FROM weft_host_runs WHERE source_id = $1 ORDER BY started_at DESC, id LIMIT $2`,
      [sourceId, limit],
    )
  ).rows;
}

/** When the last successful sync of the source started: the `lastSynchronizedAt` of the next. */
export async function lastSuccess(q: Queryable, sourceId: string): Promise<string | null> {
  const { rows } = await q.query<{ started_at: string | Date }>(
    `SELECT started_at FROM weft_host_runs WHERE source_id = $1 AND status = 'succeeded' AND kind NOT IN ('webhook', 'verify')
      ORDER BY started_at DESC LIMIT 1`,
    [sourceId],
  );
  return rows[0] ? new Date(rows[0].started_at).toISOString() : null;
}
