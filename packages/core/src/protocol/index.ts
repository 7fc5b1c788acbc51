/**
 * Wire shapes of the app protocol (see docs/protocol.md) as zod schemas. Core validates
 * requests with them; the conformance kit checks apps' responses against the same schemas.
 * Objects are loose: unknown keys are tolerated everywhere, as the service adds its own.
 */
export * from './actions.js';
export * from './data.js';
export * from './datalist.js';
export * from './descriptor.js';
export * from './json.js';
export * from './oauth.js';
export * from './paths.js';
export * from './resource.js';
export * from './schema.js';
export * from './sync-config.js';
export * from './validate.js';
export * from './webhooks.js';
