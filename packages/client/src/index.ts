export { NAMESPACES, type Namespace, NamespaceSchema } from '@weft/namespace';
export { createWorkspaceClient, type WorkspaceClient, type WorkspaceClientOptions } from './client.js';
export { WorkspaceError, type WorkspaceErrorKind, redact } from './errors.js';
export type { BudgetStore, RateLimit } from './budget/budget-store.js';
export { MemoryBudgetStore, processBudgetStore } from './budget/memory-budget-store.js';
export { RateBudget, budgetKey } from './budget/rate-budget.js';
export type { Command } from './commands/command.js';
export { BatchBuilder, type BatchSlot } from './commands/explicit-batch.js';
export type { TransportEvent, TransportStats } from './http/transport.js';
export {
  and,
  contains,
  end,
  eq,
  type Filter,
  gt,
  gte,
  isIn,
  lt,
  lte,
  ne,
  not,
  notIn,
  or,
  start,
  startsWith,
} from './query/filters.js';
export { count, many, min, type CompiledQuery, type WireQuery } from './query/query-object.js';
export { QueryBuilder } from './query/query-builder.js';
export type { RowOf, SelectItem } from './query/select-types.js';
export type { Schema, SchemaField, SchemaType } from './resources/schema-api.js';
export { DOCUMENT_SECRET, DOCUMENT_TYPE, enumTypeName, MIXINS, mandatoryFields } from './resources/schema.js';
export type { StoredFile, UploadSource } from './resources/files.js';
export type { View } from './resources/views.js';
export type { Webhook, WebhookRun } from './resources/webhooks.js';
export type { AccessToken } from './resources/tokens.js';
export type * from './schema-types.js';
export { generateTypes, writeTypes } from './types-gen/generate-types.js';
export {
  runTypesCommand,
  type TypesCommandOptions,
  type TypesCommandResult,
} from './types-gen/run-types-command.js';
export { parseDelivery, type WebhookDelivery, type WebhookEffect } from './webhooks/delivery.js';
