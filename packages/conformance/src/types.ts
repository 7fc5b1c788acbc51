import type { TypeDrift } from '@weft/sync-engine';

/** Public types of the conformance kit. */

export type CheckGroup =
  | 'descriptor'
  | 'logo'
  | 'validate'
  | 'config'
  | 'schema'
  | 'data'
  | 'delta'
  | 'drift'
  | 'datalist'
  | 'filter'
  | 'actions'
  | 'webhooks'
  | 'oauth'
  | 'errors';

export type CheckStatus = 'pass' | 'fail' | 'warn' | 'skip';

/** The request that showed a check's outcome. */
export interface CheckRequest {
  method: string;
  path: string;
  /** The request body, truncated. */
  body?: string;
}

/** The response that showed a check's outcome. */
export interface CheckResponse {
  /** HTTP status; absent when the app did not answer. */
  status?: number;
  /** The response body, truncated to about 500 characters. */
  body?: string;
}

export interface Check {
  /** Stable id such as `data.paging.loop`; the README documents every id. */
  id: string;
  group: CheckGroup;
  title: string;
  status: CheckStatus;
  reason?: string;
  request?: CheckRequest;
  response?: CheckResponse;
}

export interface ConformanceSummary {
  passed: number;
  failed: number;
  warned: number;
  skipped: number;
}

export interface RelationCoverage {
  /** Non-empty relation references seen in the synced rows (one per id for many-to-many). */
  total: number;
  /** References that point at a row synced for the target type. */
  resolved: number;
}

export interface DeltaSyncReport {
  /** Rows of the type after the delta sync was applied. */
  count: number;
  pages: number;
  synchronizationType?: 'full' | 'delta';
  /** Rows applied with `SET` (or all rows of a `full` answer). */
  set: number;
  /** Rows applied with `REMOVE`. */
  removed: number;
}

export interface TypeSyncReport {
  /** Rows of the type after the full sync. */
  count: number;
  /** Pages read during the full sync. */
  pages: number;
  /** Up to three rows of the type as the service would store them (after the delta sync). */
  sample: Record<string, unknown>[];
  synchronizationType?: 'full' | 'delta';
  /** Per relation field. */
  relationCoverage: Record<string, RelationCoverage>;
  /** The second sync with `lastSynchronizedAt`; absent when it did not run. */
  delta?: DeltaSyncReport;
}

export interface ConformanceReport {
  url: string;
  /** No check failed; with `strict`, no check warned either. */
  ok: boolean;
  /** Warnings count as failures (the `strict` option). */
  strict: boolean;
  /** The time limit per request that was used, in ms (raised above the app's own limit when known). */
  timeoutMs: number;
  /** The app's own handler time limit from `GET /` (`X-Weft-Time-Limit`), when it sent one. */
  appTimeLimitMs?: number;
  checks: Check[];
  summary: ConformanceSummary;
  sync: Record<string, TypeSyncReport>;
  durationMs: number;
  /** Per type, with the `drift` option: what the delta lost (counts and a few rows of each kind). */
  drift?: TypeDrift[];
  /** The app's types the `types` option left out: this run says nothing about them. */
  typesLeftOut?: string[];
}

/** One entry of an actions fixture: an action to execute and what should happen. */
export interface ActionFixture {
  action: string;
  args?: Record<string, unknown>;
  /** Default `success`. */
  expect?: 'success' | 'failure';
}

export type ProgressEvent =
  | { kind: 'group'; group: CheckGroup }
  | { kind: 'check'; check: Check }
  | { kind: 'sync'; phase: 'data' | 'delta'; typeId: string; page: number; items: number; done: boolean }
  /** `drift`: the wait between the first full sync and the delta began; change the upstream now */
  | { kind: 'drift-wait'; seconds: number };

export interface ConformanceOptions {
  /** Account fields sent to the app (`fields` of /validate, `account` elsewhere). */
  account?: Record<string, unknown>;
  /** Default: the first authentication of the descriptor whose id is not `none`, else `none`. */
  authenticationId?: string;
  /**
   * Filter values by filter id. Values of `date` filters may be date-range grammar text
   * ("last 3 months"); they are sent as `{_min, _max}` computed with `now`.
   */
  filter?: Record<string, unknown>;
  /** Actions to execute (external-action apps). Without it the execute checks are skipped. */
  actions?: ActionFixture[];
  /** Page cap per type and sync (default 1000). */
  maxPages?: number;
  /**
   * Time limit per request in ms (default 10000). When the app announces its own handler limit
   * (`X-Weft-Time-Limit` on `GET /`), the kit waits at least a little longer than that.
   */
  timeoutMs?: number;
  /** The current time for date filters and the default `lastSynchronizedAt` (default: the real time). */
  now?: Date | string;
  /**
   * `lastSynchronizedAt` of the delta sync (default: `now` minus one day). Set it to a time
   * before your test data changed to exercise delta and removal rows on demand.
   */
  lastSynchronizedAt?: Date | string;
  /** Warnings fail the run too (`ok` is false when any check warned). For CI. */
  strict?: boolean;
  onProgress?: (event: ProgressEvent) => void;
  /** How many types are synced at the same time (default: every type at once, as the service asks them). */
  concurrency?: number;
  /**
   * Sync only these of the app's types (ids, as in its `sync.types`), as a user who ticks only
   * some of them in the service: schema, datalists, data, delta and webhooks are asked for these
   * alone. A relation to a type left out is not judged broken (a host keeps its value as text). Default:
   * every type the app declares. An id the app does not declare is an options error.
   */
  types?: string[];
  /**
   * Keep V8's heap near what the run holds (default true): old space grows by half the live heap
   * at most instead of up to four times, and the young generation stays at its first size.
   * Process-wide (and never over a `--heap-growing-percent` or semi-space setting the process was
   * started with); `false` leaves V8's sizing alone.
   */
  boundHeap?: boolean;
  /**
   * Check that the delta loses nothing (`drift.rows`, see docs/drift.md): a full sync, the delta
   * since it, a second full sync; the delta's result must equal the second full sync.
   */
  drift?: boolean;
  /** With `drift`: seconds to wait between the first full sync and the delta, to change the upstream. */
  driftWaitSeconds?: number;
}
