import { z } from 'zod';
import { jsonObject } from './json.js';

/** Request of `POST /api/v1/synchronizer/datalist`. */
export const datalistRequest = z.looseObject({
  field: z.string().min(1),
  types: z.array(z.string()).nullish(),
  account: jsonObject.nullish(),
  dependsOn: jsonObject.nullish(),
});
export type DatalistRequest = z.infer<typeof datalistRequest>;

export const datalistItem = z.looseObject({ title: z.string(), value: z.string() });
export type DatalistItem = z.infer<typeof datalistItem>;

export const datalistResponse = z.looseObject({ items: z.array(datalistItem) });
export type DatalistResponse = z.infer<typeof datalistResponse>;

/** Request of `POST /api/v1/synchronizer/filter/validate`. */
export const filterValidateRequest = z.looseObject({
  types: z.array(z.string()).nullish(),
  filter: jsonObject.nullish(),
  account: jsonObject.nullish(),
});
export type FilterValidateRequest = z.infer<typeof filterValidateRequest>;
