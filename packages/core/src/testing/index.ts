/** Test helpers: run an app on a local port and talk to it as the service would. */
export {
  connectTestApp,
  testApp,
  type SyncOptions,
  type SyncResult,
  type TestApp,
  type TestResponse,
} from './test-app.js';
export { useCassette, resetCassettes } from '../upstream/cassette.js';
export { fuzzApp, fuzzCases, judge, type FuzzCase, type FuzzOptions, type FuzzReport } from './fuzz.js';
export {
  startOAuth2Provider,
  type LocalOAuth2Provider,
  type OAuth2ProviderOptions,
  type OAuth2ProviderUser,
} from './oauth2-provider.js';
