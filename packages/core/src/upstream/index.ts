/** Calling the app's upstream API: retries, Retry-After, timeouts and protocol errors built in. */
export {
  createUpstream,
  parseRetryAfter,
  type HttpMethod,
  type QueryValue,
  type Upstream,
  type UpstreamOptions,
  type UpstreamRequestInit,
} from './client.js';
export {
  basic,
  bearer,
  header,
  oauth1,
  oauth1Auth,
  type OAuth1Credentials,
  type UpstreamAuth,
  type UpstreamAuthRequest,
} from './auth.js';
export {
  CassetteError,
  loadCassette,
  resetCassettes,
  upstreamMode,
  useCassette,
  type Cassette,
  type CassetteInteraction,
  type UpstreamMode,
} from './cassette.js';
