/**
 * weft core: define an app for the workspace service in code, get an Express router that
 * speaks the app protocol exactly.
 * @packageDocumentation
 */
import { fieldAuth } from './define/auth.js';
import { oauth1, oauth2 } from './oauth/index.js';

export * from './define/index.js';
export * from './errors/index.js';
export { createRouter } from './router/create-router.js';
export { createServer, startServer, type RunningApp, type StartOptions } from './router/create-server.js';
export { hardenServer, type ServerLimits } from './router/harden-server.js';
export { checkJsonDepth, DEFAULT_MAX_JSON_DEPTH, TooDeepError } from './router/json-depth.js';
export { startCluster, type ClusterOptions, type ClusterPrimary } from './scale/cluster.js';
export { accessGuard, accessFromEnv, clientAddress, type AccessOptions } from './security/access.js';
export type { RouterOptions } from './router/router-options.js';
export { AppDefinitionError, type DefinitionProblem } from './startup/app-definition-error.js';
export { jsonLogger, silentLogger, type Logger } from './logging/logger.js';
export { REDACTED, redact, collectSecrets } from './logging/redact.js';
export { clip, MAX_ECHO } from './logging/clip.js';
export * from './oauth/index.js';
export {
  createUpstream,
  parseRetryAfter,
  basic,
  bearer,
  header,
  oauth1Auth,
  type HttpMethod,
  type QueryValue,
  type Upstream,
  type UpstreamOptions,
  type UpstreamRequestInit,
  type OAuth1Credentials,
  type UpstreamAuth,
  type UpstreamAuthRequest,
} from './upstream/index.js';
export {
  CassetteError,
  loadCassette,
  upstreamMode,
  useCassette,
  type Cassette,
  type CassetteInteraction,
  type UpstreamMode,
} from './upstream/index.js';
export * from './webhooks/signature.js';
export { PROTOCOL_PATHS } from './protocol/paths.js';

/**
 * Authentication kinds: `auth.none()`, `auth.fields({...})` (token, basic, API key, ...),
 * `auth.oauth1({...})` and `auth.oauth2({...})`.
 */
export const auth = { ...fieldAuth, oauth1, oauth2 } as const;
