export { DigestTable, valueDigest } from './digest-table.js';
export { describeDrift } from './describe-drift.js';
export { DRIFT_SAMPLES, DriftCheck, type DriftSample, hasDrift, type TypeDrift } from './drift-check.js';
export { type DeltaSummary, type DriftRun, type DriftRunInput, driftFields, runDrift } from './run-drift.js';
export { type ConvertRow, fullSyncInto, type SyncIntoResult, syncInto } from './sync-into.js';
