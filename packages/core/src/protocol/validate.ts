import { z } from 'zod';
import { jsonObject } from './json.js';

/** Request of `POST /validate`. */
export const validateRequest = z.looseObject({
  id: z.string().min(1),
  fields: jsonObject.default({}),
});
export type ValidateRequest = z.infer<typeof validateRequest>;

/** Response of `POST /validate`: the account title plus any account fields to merge. */
export const validateResponse = z.looseObject({ name: z.string() });
export type ValidateResponse = z.infer<typeof validateResponse>;
