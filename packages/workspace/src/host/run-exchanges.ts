import { clip, redact } from '@weft/core/redact';
import {
  AppCallError,
  accountSecrets,
  type Exchange,
  type ExchangeSummary,
  MAX_SUMMARY_TEXT,
  summarizeExchange,
} from '@weft/sync-engine';
import type { Driver, Queryable } from '../db/driver.js';
import { isSecretField } from './account-flows.js';
import { MAX_RUN_EXCHANGES, RUNS_WITH_EXCHANGES } from './run-record-limits.js';
import type { SourceRow } from './source-store.js';

// Every data request of a sync run as it went: the request (account secrets redacted), the
// status, how long it took, the items it brought, the reader's warnings, and the app's error body
// when it answered one. Kept in the workspace's own database, bounded (run-record-limits.ts), for
// the page (a table per run) and `weft dev --verbose` (the same lines as they happen).

type Json = Record<string, unknown>;

/** One recorded exchange, as the page and `weft dev --verbose` show it. */
export interface RunExchange extends ExchangeSummary {
  runId: string;
  type: string;
  page: number;
  /** items of the page; absent when it brought none (an error, a `tryLater`) */
  items?: number;
  warnings: string[];
}

/** The values of the source's account never shown: secret-named keys and its password fields. */
export function sourceSecrets(source: SourceRow, account: Json): string[] {
  const auths = (source.descriptor as { authentication?: { fields?: { id: string; type: string }[] }[] })
    .authentication;
  const secretFields = (auths ?? []).flatMap((a) => (a.fields ?? []).filter(isSecretField).map((f) => f.id));
  return accountSecrets(account, secretFields);
}

/** Exchanges held before they are stored together: one statement per batch, not per page. */
const RECORD_BATCH = 32;
/** The longest an exchange waits to be stored while its job goes on (the page's table lags by this). */
const RECORD_DELAY_MS = 1000;

/**
 * Records a page job's exchanges without holding up its pages: `add` queues a record, `flush`
 * stores those queued and waits for them. Records are stored RECORD_BATCH at a time, or
 * RECORD_DELAY_MS after the first of a batch, in one statement each: on PGlite a statement of its
 * own per page, committed between the page writes, cost more CPU than the page's record. Listeners
 * (`shown`) see each record at once. Recording never fails the sync: an exchange that could not
 * be stored is only missing from the table.
 */
export class ExchangeRecorder {
  private chain: Promise<void> = Promise.resolve();
  private pending: Pending[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly driver: Driver,
    private readonly runId: string,
    private readonly secrets: string[],
    private readonly shown?: (exchange: RunExchange) => void,
  ) {}

  add(
    at: { type: string; page: number },
    exchange: Exchange | undefined,
    outcome: { items?: number; warnings?: string[]; error?: unknown } = {},
  ): void {
    if (!exchange) return;
    const summary = summarizeExchange(exchange, this.secrets);
    // A 2xx answer the reader could not read (or a paging loop): what was wrong is shown instead.
    if (summary.errorBody === undefined && outcome.error instanceof AppCallError)
      summary.errorBody = clip(redact(outcome.error.message, this.secrets), MAX_SUMMARY_TEXT);
    const record: RunExchange = {
      ...summary,
      runId: this.runId,
      type: at.type,
      page: at.page,
      ...(outcome.items !== undefined ? { items: outcome.items } : {}),
      warnings: outcome.warnings ?? [],
    };
    try {
      this.shown?.(record);
    } catch {
      // a listener's failure is not the sync's
    }
    this.pending.push({ ...record, at: new Date().toISOString() });
    if (this.pending.length >= RECORD_BATCH) this.store();
    else this.timer ??= setTimeout(() => this.store(), RECORD_DELAY_MS).unref();
  }

  /** Stores what is queued and resolves once every record added so far is stored (or dropped). */
  flush(): Promise<void> {
    this.store();
    return this.chain;
  }

  private store(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.chain = this.chain.then(() => insertExchanges(this.driver, this.runId, batch).catch(() => {}));
  }
}

/** A record waiting to be stored, with when it was added (its `at`, whenever it is stored). */
type Pending = RunExchange & { at: string };

/** The records in order, those past the run's MAX_RUN_EXCHANGES left out. */
async function insertExchanges(db: Queryable, runId: string, records: Pending[]): Promise<void> {
  const rows = records.map((r) => ({
    type: r.type,
    page: r.page,
    method: r.method,
    path: r.path,
    request: r.request ?? null,
    status: r.status ?? null,
    duration_ms: r.ms,
    items: r.items ?? null,
    warnings: r.warnings,
    error_body: r.errorBody ?? null,
    failure: r.failure ?? null,
    at: r.at,
  }));
  await db.query(
    `INSERT INTO weft_host_run_exchanges
       (run_id, type, page, method, path, request, status, duration_ms, items, warnings, error_body, failure, at)
     SELECT $1::uuid, r->>'type', (r->>'page')::int, r->>'method', r->>'path', r->>'request',
            (r->>'status')::int, (r->>'duration_ms')::int, (r->>'items')::int, (r->'warnings')::jsonb,
            r->>'error_body', r->>'failure', (r->>'at')::timestamptz
       FROM json_array_elements($2::json) WITH ORDINALITY AS x(r, n)
      WHERE x.n <= $3::int - (SELECT count(*) FROM weft_host_run_exchanges WHERE run_id = $1::uuid)
      ORDER BY x.n`,
    [runId, JSON.stringify(rows), MAX_RUN_EXCHANGES],
  );
}

/** Exchanges of the source's runs older than its RUNS_WITH_EXCHANGES latest are dropped. */
export async function pruneExchanges(db: Queryable, sourceId: string): Promise<void> {
  await db.query(
    `DELETE FROM weft_host_run_exchanges WHERE run_id IN (
       SELECT id FROM weft_host_runs WHERE source_id = $1 ORDER BY started_at DESC OFFSET $2)`,
    [sourceId, RUNS_WITH_EXCHANGES],
  );
}

export interface RunExchangeRow {
  type: string;
  page: number;
  method: string;
  path: string;
  request: string | null;
  status: number | null;
  duration_ms: number;
  items: number | null;
  warnings: string[];
  error_body: string | null;
  failure: string | null;
  at: string | Date;
}

/** A run's recorded exchanges, in the order they happened. */
export async function runExchanges(db: Queryable, runId: string): Promise<RunExchangeRow[]> {
  const { rows } = await db.query<RunExchangeRow>(
    `SELECT type, page, method, path, request, status, duration_ms, items, warnings, error_body, failure, at
       FROM weft_host_run_exchanges WHERE run_id = $1 ORDER BY seq`,
    [runId],
  );
  return rows;
}
