import { z } from 'zod';
import { jsonObject } from './json.js';

/** Value types of synced fields (spec section 2). */
export const schemaFieldType = z.enum(['id', 'text', 'number', 'date', 'array[text]']);
export type SchemaFieldType = z.infer<typeof schemaFieldType>;

/** Sub-types the service knows (the spec's list plus what the real service accepts; see docs/protocol.md). */
export const schemaFieldSubType = z.enum([
  'integer',
  'url',
  'email',
  'boolean',
  'date-range',
  'date-time-range',
  'html',
  'md',
  'icon',
  'single-select',
  'multi-select',
  'workflow',
  'day',
  'file',
  'files',
  'avatar',
  'title',
  'location',
]);
export type SchemaFieldSubType = z.infer<typeof schemaFieldSubType>;

export const relationCardinality = z.enum(['many-to-one', 'many-to-many', 'one-to-one']);
export type RelationCardinality = z.infer<typeof relationCardinality>;

/**
 * A relation. `kind: "native"` relates to a type of the workspace itself (its users, matched by
 * e-mail) rather than to another synced type.
 */
export const relation = z.looseObject({
  cardinality: relationCardinality,
  kind: z.literal('native').optional(),
  name: z.string().min(1),
  targetType: z.string().min(1),
  targetName: z.string().min(1),
  targetFieldId: z.string().min(1),
});
export type Relation = z.infer<typeof relation>;

/** `format` of a number field (Money, Percent, Number) or of a text field (phone). */
export const numberFormat = z.looseObject({
  format: z.enum(['Money', 'Percent', 'Number', 'phone']),
  currencyCode: z.string().optional(),
  hasThousandSeparator: z.boolean().optional(),
  precision: z.number().int().min(0).optional(),
  unit: z.string().optional(),
});

export const selectOption = z.looseObject({
  name: z.string().min(1),
  default: z.boolean().optional(),
  final: z.boolean().optional(),
  color: z.string().optional(),
  icon: z.string().optional(),
});

/** A schema field's known keys; `schemaField` also tolerates unknown ones. */
export const schemaFieldKnown = z.object({
  id: z.string().min(1).optional(),
  name: z.string().min(1),
  type: schemaFieldType,
  subType: schemaFieldSubType.optional(),
  description: z.string().optional(),
  ignore: z.boolean().optional(),
  readonly: z.boolean().optional(),
  relation: relation.optional(),
  path: z.string().optional(),
  format: numberFormat.optional(),
  options: z.array(selectOption).optional(),
  /** Position in the service's UI. */
  order: z.number().optional(),
  postProcessingFunctions: z.array(z.string()).optional(),
});
export const schemaField = schemaFieldKnown.loose();
export type SchemaField = z.infer<typeof schemaField>;
/** The keys weft itself writes in a schema field. */
export type SchemaFieldSpec = z.infer<typeof schemaFieldKnown>;

/** Fields of one type, keyed by field id. */
export const typeSchema = z.record(z.string(), schemaField);
export type TypeSchema = z.infer<typeof typeSchema>;

/** Request of `POST /api/v1/synchronizer/schema`. */
export const schemaRequest = z.looseObject({
  types: z.array(z.string().min(1)).min(1),
  filter: jsonObject.nullish().transform((v) => v ?? {}),
  account: jsonObject.nullish().transform((v) => v ?? {}),
});
export type SchemaRequest = z.infer<typeof schemaRequest>;

/** Response of `POST /api/v1/synchronizer/schema`: a schema per requested type. */
export const schemaResponse = z.record(z.string(), typeSchema);
export type SchemaResponse = z.infer<typeof schemaResponse>;

/** The reserved field that carries a delta row's action. */
export const SYNC_ACTION_FIELD = '__syncAction';
export const syncAction = z.enum(['SET', 'REMOVE']);
export type SyncAction = z.infer<typeof syncAction>;
