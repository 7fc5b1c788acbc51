import { z } from 'zod';
import { jsonObject } from './json.js';

export const synchronizationType = z.enum(['full', 'delta']);
export type SynchronizationType = z.infer<typeof synchronizationType>;

/** `lastSynchronizedAt` is an ISO timestamp; epoch milliseconds are tolerated. */
export const timestamp = z.union([z.string().min(1), z.number()]);

/** Request of `POST /api/v1/synchronizer/data`. */
export const dataRequest = z.looseObject({
  requestedType: z.string().min(1),
  types: z.array(z.string().min(1)).nullish(),
  filter: jsonObject.nullish(),
  account: jsonObject.nullish(),
  pagination: jsonObject.nullish(),
  lastSynchronizedAt: timestamp.nullish(),
  operationId: z.string().nullish(),
  schema: z.unknown().optional(),
  version: z.unknown().optional(),
});
export type DataRequest = z.infer<typeof dataRequest>;

export const dataPagination = z.looseObject({
  hasNext: z.boolean(),
  nextPageConfig: jsonObject.nullish(),
});

/** Response of `POST /api/v1/synchronizer/data`. */
export const dataResponse = z.looseObject({
  items: z.array(jsonObject),
  pagination: dataPagination,
  synchronizationType: synchronizationType,
});
export type DataResponse = z.infer<typeof dataResponse>;
