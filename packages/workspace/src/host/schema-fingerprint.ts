import { createHash } from 'node:crypto';
import { stableStringify } from '@weft/sync-engine';
import type { Driver } from '../db/driver.js';
import { FINGERPRINT_COLUMNS } from './host-ddl.js';

// The service refreshes an app fully after a change of its config: a delta after a new field would
// leave every row synced before with that field empty. The host keeps a fingerprint of what the
// app offers (its config: types and filters; and the schema of the source's types) per source,
// taken by each sync's start job and stored when the sync succeeds; a start job that finds it
// changed makes its run full, however the run was asked for. A run asked for as full (`weft dev
// --full`, the page's "Full sync" button) is full too. `full_reason` says why a run is full.

/** Why a run was made full (the run's `full_reason`). */
export const FULL_ASKED = 'asked for';
export const FULL_SCHEMA_CHANGED = "the app's schema changed";

export async function createFingerprintColumns(driver: Driver): Promise<void> {
  await driver.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(4242012)');
    for (const statement of FINGERPRINT_COLUMNS) await tx.query(statement);
  });
}

/** A short hash of the app's config (types, filters) and the schema of the synced types. */
export function schemaFingerprint(config: { types: unknown; filters?: unknown }, schema: unknown): string {
  const offered = { types: config.types, filters: config.filters ?? [], schema };
  return createHash('sha256').update(stableStringify(offered)).digest('base64url').slice(0, 22);
}
