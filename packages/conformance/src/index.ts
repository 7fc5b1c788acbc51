/**
 * @weft/conformance: plays the service's side of the app protocol against an app at a URL and
 * reports every departure from the spec, as checks with stable ids (see README).
 */
export { DEFAULT_ACCOUNT_NAME, SYSTEM_IDS, serviceAccount } from './account.js';
export {
  type CheckDriftOptions,
  checkDrift,
  DriftError,
  type DriftReport,
  type DriftTarget,
} from './check-drift.js';
export { CHECK_IDS, CHECKS, type CheckId } from './catalog.js';
export { resolveDateFilters } from './date-filter.js';
export { type CliIo, EXIT, runConformanceCli } from './cli-main.js';
export { AppUnreachableError, ConformanceOptionsError } from './errors.js';
export { type FormatOptions, formatReport } from './format.js';
export {
  DEFAULT_MAX_PAGES,
  DEFAULT_TIMEOUT_MS,
  effectiveTimeout,
  runConformance,
} from './run.js';
export type {
  ActionFixture,
  Check,
  CheckGroup,
  CheckRequest,
  CheckResponse,
  CheckStatus,
  ConformanceOptions,
  ConformanceReport,
  ConformanceSummary,
  DeltaSyncReport,
  ProgressEvent,
  RelationCoverage,
  TypeSyncReport,
} from './types.js';
