/**
 * @weft/conformance: plays the service's side of the app protocol against an app at a URL and
 * reports every departure from the spec, as checks with stable ids (see README).
 */
export { CHECK_IDS, CHECKS, type CheckId } from './catalog.js';
export { ConformanceOptionsError } from './errors.js';
export { type FormatOptions, formatReport } from './format.js';
export { DEFAULT_CONCURRENCY, DEFAULT_MAX_PAGES, DEFAULT_TIMEOUT_MS, runConformance } from './run.js';
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
