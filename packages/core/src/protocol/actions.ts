import { z } from 'zod';
import { jsonObject } from './json.js';

/** Request of `POST /api/v1/automations/action/execute`. */
export const executeRequest = z.looseObject({
  action: z.looseObject({
    action: z.string().min(1),
    args: jsonObject.nullish(),
  }),
  account: jsonObject.nullish(),
});
export type ExecuteRequest = z.infer<typeof executeRequest>;
