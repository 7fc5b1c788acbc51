import { z } from 'zod';
import { editorMode, fieldType } from './descriptor.js';
import { jsonObject } from './json.js';

export const syncType = z.looseObject({
  id: z.string().min(1),
  name: z.string().min(1),
  description: z.string().optional(),
  /** Pre-selected when the user picks the types to sync. */
  default: z.boolean().optional(),
  /** The type holds people (the service can match them to its users). */
  isUser: z.boolean().optional(),
});
export type SyncType = z.infer<typeof syncType>;

export const filter = z.looseObject({
  id: z.string().min(1),
  title: z.string().min(1),
  type: fieldType,
  datalist: z.boolean().optional(),
  optional: z.boolean().optional(),
  secured: z.boolean().optional(),
  editorMode: editorMode.optional(),
  datalist_requires: z.array(z.string()).optional(),
  /** The value the filter starts with. */
  defaultValue: z.unknown().optional(),
});
export type Filter = z.infer<typeof filter>;

/** Request of `POST /api/v1/synchronizer/config`: every parameter optional. */
export const configRequest = z.looseObject({ account: jsonObject.nullish() });

export const configResponse = z.looseObject({
  types: z.array(syncType),
  /** May be left out: "if no filters are given, users cannot filter the data". */
  filters: z.array(filter).optional(),
  webhooks: z.looseObject({ enabled: z.boolean() }).optional(),
  /** A number the app raises when its config changes. */
  version: z.number().optional(),
});
export type ConfigResponse = z.infer<typeof configResponse>;
