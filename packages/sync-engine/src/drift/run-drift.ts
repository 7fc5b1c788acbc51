import { SYNC_ACTION_FIELD } from '@weft/core/protocol';
import type { AppClient } from '../app-client.js';
import type { RetryPolicy } from '../retry.js';
import { DigestTable } from './digest-table.js';
import { DriftCheck, type TypeDrift } from './drift-check.js';
import { type ConvertRow, fullSyncInto, syncInto } from './sync-into.js';

type Json = Record<string, unknown>;

/** The fields a drift compares: every field of the type's schema but `id` and `__syncAction`. */
export function driftFields(typeSchema: Record<string, unknown> | undefined): string[] {
  return Object.keys(typeSchema ?? {}).filter((f) => f !== 'id' && f !== SYNC_ACTION_FIELD);
}

export interface DriftRunInput {
  /** type id -> the fields compared (see driftFields) */
  types: Record<string, readonly string[]>;
  account: Json;
  filter: Json;
  operationId?: string;
  /** the types' schema as read from the app, sent with every data request (see DataRequestBody) */
  schema?: Json;
  retry?: RetryPolicy;
  signal?: AbortSignal;
  /** per type, a row as it would be stored; identity by default */
  convert?: (type: string) => ConvertRow;
  /** runs between the first full sync and the delta sync: where the upstream changes */
  between?: () => Promise<void> | void;
  /** the clock whose reading before the first sync is sent as `lastSynchronizedAt` */
  now?: () => Date;
}

export interface DeltaSummary {
  synchronizationType: 'full' | 'delta';
  pages: number;
  set: number;
  removed: number;
}

export interface DriftRun {
  /** sent as `lastSynchronizedAt` in the delta sync: when the first full sync started */
  lastSynchronizedAt: string;
  delta: Record<string, DeltaSummary>;
  drift: TypeDrift[];
}

/**
 * The drift property, run against an app: a full sync, the delta since it (after `between`), and a
 * second full sync; per type, the state the delta leaves must equal the second full sync, per id
 * and per value. Memory holds digests of ids and values, and one page per type at a time.
 */
export async function runDrift(client: AppClient, input: DriftRunInput): Promise<DriftRun> {
  const typeIds = Object.keys(input.types);
  const common = {
    types: typeIds,
    filter: input.filter,
    account: input.account,
    ...(input.operationId ? { operationId: input.operationId } : {}),
    ...(input.schema ? { schema: input.schema } : {}),
    ...(input.retry ? { retry: input.retry } : {}),
    ...(input.signal ? { signal: input.signal } : {}),
  };
  const convert = (type: string) => input.convert?.(type) ?? ((row: Json) => row);
  const lastSynchronizedAt = (input.now?.() ?? new Date()).toISOString();
  // Each sync reads every type at once, as the service does: apps that fetch all types upstream
  // in one go answer a type's first page only once every type has asked for its own.
  const tables = new Map<string, DigestTable>();
  await Promise.all(
    typeIds.map(async (type) => {
      const read = await syncInto(
        client,
        { ...common, type, lastSynchronizedAt: null },
        new DigestTable(input.types[type] ?? []),
        convert(type),
      );
      tables.set(type, read.table);
    }),
  );
  await input.between?.();
  const summaries = await Promise.all(
    typeIds.map(async (type) => {
      const read = await syncInto(
        client,
        { ...common, type, lastSynchronizedAt },
        tables.get(type) as DigestTable,
        convert(type),
      );
      tables.set(type, read.table);
      const { table: _, ...summary } = read;
      return summary;
    }),
  );
  const delta: Record<string, DeltaSummary> = Object.fromEntries(
    typeIds.map((t, i) => [t, summaries[i] as DeltaSummary]),
  );
  const drift = await Promise.all(
    typeIds.map(async (type) => {
      const check = new DriftCheck(type, tables.get(type) as DigestTable);
      await fullSyncInto(client, { ...common, type }, check, convert(type));
      return check.finish();
    }),
  );
  return { lastSynchronizedAt, delta, drift };
}
