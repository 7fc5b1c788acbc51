import { z } from 'zod';

/** A JSON object with any keys. Accounts and filters carry keys the app does not know (system keys). */
export const jsonObject = z.record(z.string(), z.unknown());
export type JsonObject = z.infer<typeof jsonObject>;

/** Error body of every failing endpoint (spec section 7). */
export const errorBody = z.looseObject({
  message: z.string(),
  tryLater: z.boolean().optional(),
});
export type ErrorBody = z.infer<typeof errorBody>;
