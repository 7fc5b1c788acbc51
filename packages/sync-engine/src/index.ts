export { AppCallError } from './app-call-error.js';
export { AppClient, type AppClientOptions, type DataRequestInput, parseAnswer } from './app-client.js';
export { answerOf, appMessageOf, errorOf, isTryLater } from './answer.js';
export { classifyDataAnswer, type DataOutcome, type DataPage } from './data-page.js';
export { ExchangeThread, type Exchanger } from './exchange-thread.js';
export {
  type Exchange,
  type ExchangeRequest,
  readAnswerText,
  requestText,
  type SendOptions,
  sendExchange,
} from './exchange.js';
export {
  type ExchangeDoneEvent,
  type ExchangePageEvent,
  type ExchangeRetryEvent,
  type FailedEvent,
  type PagesEvent,
  type ReadPagesInput,
  readPage,
  readPages,
} from './read-pages.js';
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
export { isMissingEndpoint } from './missing-endpoint.js';
export { type ReadTypesInput, readTypes } from './read-types.js';
export {
  checkSchemaSize,
  MAX_ANSWER_BYTES,
  MAX_DATA_ANSWER_BYTES,
  MAX_FIELDS_PER_TYPE,
  MAX_SCHEMA_TYPES,
} from './limits.js';
export {
  formatWarning,
  type ReadAction,
  type ReadAuthentication,
  type ReadAuthField,
  type ReadConfig,
  type ReadDataPage,
  type ReadDescriptor,
  type ReaderWarning,
  type ReadFilter,
  type ReadResult,
  type ReadSyncType,
  readActionAnswer,
  readConfig,
  readDataAnswer,
  readDatalistAnswer,
  readDescriptor,
  readOauth1AuthorizeAnswer,
  readOauth2AuthorizeAnswer,
  readOauthAccountAnswer,
  readSchema,
  readTransformAnswer,
  readValidateAnswer,
  readWebhookAnswer,
} from './reader/index.js';
export { appRequests, type DataRequestBody, type OAuth2Callback, type WebhookScope } from './requests.js';
export { type ItemAction, itemAction, splitItems } from './split-items.js';
export * from './drift/index.js';
export { HashMap64 } from './hashes/hash-map.js';
export { hashId } from './hashes/id-hash.js';
export { stableStringify } from './hashes/stable-stringify.js';
export {
  accountSecrets,
  type ExchangeSummary,
  exchangeLine,
  MAX_SUMMARY_TEXT,
  summarizeExchange,
} from './exchange-summary.js';
export { boundHeap, type HeapBounds, heapBoundFlags } from './heap/heap-bounds.js';
export {
  type Coercion,
  type Conversion,
  canonicalIso,
  conversionOf,
  convertValue,
  listItems,
  toIso,
  toIsoSlow,
} from './values/convert-value.js';
export { type RelationCoercion, relationTargets } from './values/relation-targets.js';
export { richTextOf } from './values/rich-text.js';
