export { AppCallError } from './app-call-error.js';
export { AppClient, type AppClientOptions, type DataPage, type DataRequestInput } from './app-client.js';
export {
  DEFAULT_RETRY,
  type DoneEvent,
  type PageEvent,
  type ReadTypeInput,
  type RetryEvent,
  type RetryPolicy,
  readType,
  retryDelay,
  type SyncEvent,
} from './read-type.js';
export { type ReadTypesInput, readTypes } from './read-types.js';
export { splitItems } from './split-items.js';
