import { z } from 'zod';
import { jsonObject } from './json.js';

/** Request of `POST /api/v1/synchronizer/resource`: serves files referenced as `app://resource?...`. */
export const resourceRequest = z.looseObject({
  types: z.array(z.string()).nullish(),
  account: jsonObject.nullish(),
  filter: jsonObject.nullish(),
  params: jsonObject.default({}),
});
export type ResourceRequest = z.infer<typeof resourceRequest>;
