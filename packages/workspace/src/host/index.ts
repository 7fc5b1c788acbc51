export { SYSTEM_KEYS } from './account-flows.js';
export { type AddSourceInput, AppHost, type AppHostOptions, type UpdateSourceInput } from './app-host.js';
export { entityId } from './entity-ids.js';
export { hostRouter } from './host-router.js';
export { type RunExchange, type RunExchangeRow, runExchanges } from './run-exchanges.js';
export { DEFAULT_LEASE_SECONDS, LOCAL_LEASE_SECONDS } from './run-lease.js';
export { type RunModes, runModeLabel } from './run-mode.js';
export { mapSchema, namespaceFor } from './schema-mapping.js';
export { SecretBox } from './secret-box.js';
export {
  type HostedWorkspace,
  type StartHostedWorkspaceOptions,
  startHostedWorkspace,
} from './start-hosted-workspace.js';
