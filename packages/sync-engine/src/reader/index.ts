// The service's side reads every app answer here, leniently: what apps in production send and the
// real service takes is taken (with a warning), and what cannot be read is confined to the
// smallest part it concerns. Core's `@weft/core/protocol` schemas stay exact: they are what weft's
// own apps emit, not what the service accepts.
export {
  readActionAnswer,
  readDatalistAnswer,
  readOauth1AuthorizeAnswer,
  readOauth2AuthorizeAnswer,
  readOauthAccountAnswer,
  readTransformAnswer,
  readValidateAnswer,
  readWebhookAnswer,
} from './answers.js';
export { type ReadConfig, type ReadFilter, type ReadSyncType, readConfig } from './config.js';
export { type ReadDataPage, readDataAnswer } from './data.js';
export {
  type ReadAction,
  type ReadAuthentication,
  type ReadAuthField,
  type ReadDescriptor,
  readDescriptor,
} from './descriptor.js';
export { readSchema } from './schema.js';
export { formatWarning, type ReaderWarning, type ReadResult } from './warning.js';
