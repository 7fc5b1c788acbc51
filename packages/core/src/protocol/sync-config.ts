import { z } from 'zod';
import { editorMode, fieldType } from './descriptor.js';
import { jsonObject } from './json.js';

export const syncType = z.looseObject({ id: z.string().min(1), name: z.string().min(1) });
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
});
export type Filter = z.infer<typeof filter>;

/** Request of `POST /api/v1/synchronizer/config`: every parameter optional. */
export const configRequest = z.looseObject({ account: jsonObject.optional() });

export const configResponse = z.looseObject({
  types: z.array(syncType),
  /** May be left out: "if no filters are given, users cannot filter the data". */
  filters: z.array(filter).optional(),
  webhooks: z.looseObject({ enabled: z.boolean() }).optional(),
});
export type ConfigResponse = z.infer<typeof configResponse>;
