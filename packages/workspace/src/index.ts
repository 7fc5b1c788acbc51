export type { Principal } from './auth/principal.js';
export type { CommandResult } from './commands/dispatcher.js';
export { configFromEnv, DEFAULT_DATA_DIR, DEFAULT_PORT, everyInterfaceNotice } from './config.js';
export { copyValue } from './db/copy-text.js';
export {
  type DataFolderLock,
  DataFolderInUse,
  LOCK_FILE,
  type LockHolder,
  lockDataFolder,
} from './db/data-folder-lock.js';
export type { CopyOptions, Driver, Queryable, QueryResult } from './db/driver.js';
export { type DatabaseOption, openDriver } from './db/open-driver.js';
export { type ErrorCode, WorkspaceError } from './errors.js';
export { type AppOptions, createApp } from './http/create-app.js';
export type { TlsOptions } from './http/tls.js';
export { type JobQueueOptions, JobQueue } from './jobs/job-queue.js';
export { generateToken } from './tokens/token-store.js';
export { compileQuery, DEFAULT_LIMIT } from './query/compile-query.js';
export {
  DEFAULT_RATE_LIMIT,
  type RunningWorkspace,
  type StartWorkspaceOptions,
  startWorkspace,
} from './start-workspace.js';
export type { WebhookWorkerOptions } from './webhooks/webhook-worker.js';
export { type OpenWorkspaceOptions, openWorkspace, type Workspace } from './workspace.js';
// The app host (sources, syncs, app webhooks): see docs/dev.md.
export * from './host/index.js';
