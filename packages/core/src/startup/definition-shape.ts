import { z } from 'zod';
import { fieldType, schemaFieldSubType, schemaFieldType, relationCardinality } from '../protocol/index.js';

// Shapes of the parts of a definition that plain JavaScript users could get wrong. Type-level
// guarantees vanish at run time, so the start-up check does not trust them.
const fn = z.custom<(...args: unknown[]) => unknown>((v) => typeof v === 'function', 'must be a function');
const nonEmpty = z.string().trim().min(1, 'must be a non-empty string');

export const inputFieldShape = z.looseObject({
  type: fieldType,
  name: nonEmpty,
  optional: z.boolean(),
  datalistRequires: z.array(z.string()).optional(),
});

const authentication = z.looseObject({
  kind: z.enum(['none', 'fields', 'oauth1', 'oauth2']),
  id: nonEmpty,
  name: nonEmpty,
  fields: z.array(z.looseObject({ id: nonEmpty })),
  secretKeys: z.array(z.string()),
  validate: fn.optional(),
});

const schemaField = z.looseObject({
  spec: z.looseObject({
    type: schemaFieldType,
    subType: schemaFieldSubType.optional(),
    order: z.number().optional(),
    postProcessingFunctions: z.array(z.string()).optional(),
    options: z
      .array(
        z.looseObject({
          name: nonEmpty,
          default: z.boolean().optional(),
          final: z.boolean().optional(),
          color: z.string().optional(),
          icon: z.string().optional(),
        }),
      )
      .optional(),
    relation: z
      .looseObject({
        cardinality: relationCardinality,
        kind: z.literal('native').optional(),
        targetType: nonEmpty,
        targetName: nonEmpty,
        targetFieldId: nonEmpty,
      })
      .optional(),
  }),
});

const pageSize = z.number().int().min(1).max(100_000);

export const syncTypeShape = z.looseObject({
  name: nonEmpty,
  description: z.string().optional(),
  default: z.boolean().optional(),
  isUser: z.boolean().optional(),
  fields: z.record(z.string(), schemaField),
  delta: z
    .union([z.boolean(), z.looseObject({ safetyMarginHours: z.number().min(0).optional() })])
    .optional(),
  pageSize: pageSize.optional(),
  data: fn,
});

const actionArg = z.looseObject({ type: z.enum(['text', 'textarea']), name: nonEmpty });

export const definitionShape = z.looseObject({
  id: nonEmpty,
  name: nonEmpty,
  version: nonEmpty,
  description: z.string(),
  website: z.string(),
  logo: z
    .union([
      z.looseObject({ svg: nonEmpty }),
      z.looseObject({ file: nonEmpty }),
      z.looseObject({ url: z.url() }),
    ])
    .optional(),
  authentication: z
    .array(authentication)
    .min(1, 'needs at least one authentication (auth.none() for a public app)'),
  pageSize: pageSize.optional(),
  timeoutMs: z.number().int().min(1).optional(),
  sync: z
    .looseObject({
      filters: z.record(z.string(), inputFieldShape).optional(),
      datalists: z.record(z.string(), fn).optional(),
      validateFilter: fn.optional(),
      types: z.record(z.string(), syncTypeShape),
      version: z.number().optional(),
      accountTypes: fn.optional(),
      accountFilters: fn.optional(),
      accountCacheSeconds: z.number().min(0).optional(),
      webhooks: z
        .looseObject({ install: fn, uninstall: fn, verify: fn, transform: fn, preProcess: fn.optional() })
        .optional(),
      resource: fn.optional(),
    })
    .optional(),
  actions: z
    .record(z.string(), z.looseObject({ name: nonEmpty, args: z.record(z.string(), actionArg), run: fn }))
    .optional(),
});
