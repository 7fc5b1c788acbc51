import { z } from 'zod';

/** Field types usable in account forms and filters (spec section 2, "Field types"). */
export const fieldType = z.enum([
  'text',
  'number',
  'bool',
  'password',
  'link',
  'highlightText',
  'datebox',
  'date',
  'oauth',
  'list',
  'multidropdown',
]);
export type FieldType = z.infer<typeof fieldType>;

export const editorMode = z.enum(['json', 'sql']);

export const responsibleFor = z.looseObject({
  dataSynchronization: z.boolean().optional(),
  automations: z.boolean().optional(),
});

/** An account form field. The label is `name` (some examples use `title`): one of them is required. */
export const authenticationField = z
  .looseObject({
    id: z.string().min(1),
    name: z.string().min(1).optional(),
    title: z.string().min(1).optional(),
    type: fieldType,
    description: z.string(),
    optional: z.boolean().optional(),
    value: z.string().optional(),
    editorMode: editorMode.optional(),
    datalist_requires: z.array(z.string()).optional(),
  })
  .refine((field) => field.name !== undefined || field.title !== undefined, {
    message: 'an authentication field needs `name` (or `title`)',
    path: ['name'],
  });
export type AuthenticationField = z.infer<typeof authenticationField>;

export const authentication = z.looseObject({
  id: z.string().min(1),
  name: z.string().min(1),
  description: z.string().optional(),
  fields: z.array(authenticationField).optional(),
  responsibleFor: responsibleFor.optional(),
});
export type Authentication = z.infer<typeof authentication>;

export const actionArgument = z.looseObject({
  id: z.string().min(1),
  name: z.string().min(1),
  description: z.string().optional(),
  type: z.enum(['text', 'textarea']),
  textTemplateSupported: z.boolean().optional(),
});
export type ActionArgument = z.infer<typeof actionArgument>;

export const action = z.looseObject({
  action: z.string().min(1),
  name: z.string().min(1),
  description: z.string().optional(),
  args: z.array(actionArgument),
});
export type Action = z.infer<typeof action>;

/** Response of `GET /`. */
export const descriptor = z.looseObject({
  id: z.string().min(1).optional(),
  name: z.string().min(1),
  website: z.string(),
  version: z.string().min(1),
  description: z.string(),
  authentication: z.array(authentication).min(1),
  sources: z.array(z.unknown()).max(0),
  responsibleFor: responsibleFor,
  actions: z.array(action).optional(),
});
export type Descriptor = z.infer<typeof descriptor>;
