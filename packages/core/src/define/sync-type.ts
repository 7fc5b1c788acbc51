import type { Logger } from '../logging/logger.js';
import type { DataMarker, JsonValue } from './markers.js';
import type { ItemOf, SchemaFields } from './schema-fields.js';

/** What a data handler receives for one page request. */
export interface DataContext<A, F> {
  account: A;
  filter: F;
  /** The type being synced. */
  requestedType: string;
  /** Every type the user chose to sync, for context. */
  types: readonly string[];
  /** `'delta'` when the type supports delta and the service sent `lastSynchronizedAt`. */
  mode: 'full' | 'delta';
  /** When the last successful sync ran, or null on a first (full) sync. */
  lastSynchronizedAt: Date | null;
  /**
   * Ask the upstream for changes since this instant: `lastSynchronizedAt` minus the type's
   * safety margin in a delta sync; null in a full sync.
   */
  since: Date | null;
  /** One id per sync run, shared by the per-type requests, when the service sends it. */
  operationId: string | undefined;
  /** The state of the last `resume()` yielded before this page, or undefined on the first page. */
  cursor: JsonValue | undefined;
  /** Aborted when the request times out or the service hangs up: pass it to upstream calls. */
  signal: AbortSignal;
  log: Logger;
}

/** One yielded value: an item, a marker, or an array of them (a batch, e.g. an upstream page). */
export type DataRow<Fields> = ItemOf<Fields> | DataMarker;

/** A data handler: an async generator of the type's items, with `resume()`/`remove()`/`jsonItems()` markers. */
export type DataHandler<Fields, A, F> = (
  ctx: DataContext<A, F>,
) => AsyncIterable<DataRow<Fields> | ReadonlyArray<DataRow<Fields>>>;

export interface DeltaOptions {
  /** Hours subtracted from `lastSynchronizedAt` to get `ctx.since`; default 2. */
  safetyMarginHours?: number;
}

/** A synced type: its schema and how to read its items. */
export interface SyncTypeDefinition<Fields extends SchemaFields, A, F> {
  /** Name shown to users. */
  name: string;
  /** Shown to users when they pick the types to sync. */
  description?: string;
  /** Pre-selected when users pick the types to sync. */
  default?: boolean;
  /** The type holds people (sent as `isUser` in the config). */
  isUser?: boolean;
  /** Fields keyed by id; `id` and `name` are required. */
  fields: Fields;
  /**
   * Supports delta sync: when the service sends `lastSynchronizedAt`, core answers with
   * `synchronizationType: 'delta'`, items carry `__syncAction: 'SET'`, `remove(id)` sends
   * `REMOVE` rows, and `__syncAction` is added to the schema.
   */
  delta?: boolean | DeltaOptions;
  /** Items per page; default the app's `pageSize` (1,000). */
  pageSize?: number;
  data: DataHandler<Fields, A, F>;
}
