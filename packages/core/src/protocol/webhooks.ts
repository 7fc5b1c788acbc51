import { z } from 'zod';
import { jsonObject } from './json.js';

/** The webhook object an app returns on install; the service sends it back later. */
export const webhook = z.looseObject({ id: z.string().min(1), events: z.array(z.string()).optional() });
export type Webhook = z.infer<typeof webhook>;

/** Request of `POST /api/v1/synchronizer/webhooks` (install, update and reinstall). */
export const webhookInstallRequest = z.looseObject({
  types: z.array(z.string()).nullish(),
  filter: jsonObject.nullish(),
  account: jsonObject.nullish(),
  webhook: webhook.nullish(),
  /** Where the third party must send its events (the real service sends it; the spec does not show it). */
  url: z.string().nullish(),
});
export type WebhookInstallRequest = z.infer<typeof webhookInstallRequest>;

export const webhookInstallResponse = z.looseObject({ id: z.string().min(1), events: z.array(z.string()) });

/** Request of `DELETE /api/v1/synchronizer/webhooks`. */
export const webhookDeleteRequest = z.looseObject({
  types: z.array(z.string()).nullish(),
  filter: jsonObject.nullish(),
  account: jsonObject.nullish(),
  webhook: webhook,
});
export type WebhookDeleteRequest = z.infer<typeof webhookDeleteRequest>;

/** Request of `POST /api/v1/synchronizer/webhooks/verify`. */
export const webhookVerifyRequest = z.looseObject({
  params: jsonObject.nullish(),
  payload: z.unknown(),
});
export type WebhookVerifyRequest = z.infer<typeof webhookVerifyRequest>;

export const webhookVerifyResponse = z.looseObject({ id: z.string().min(1) });

/** Request of `POST /api/v1/synchronizer/webhooks/transform`. */
export const webhookTransformRequest = z.looseObject({
  params: jsonObject.nullish(),
  payload: z.unknown(),
  types: z.array(z.string()).nullish(),
  filter: jsonObject.nullish(),
  account: jsonObject.nullish(),
});
export type WebhookTransformRequest = z.infer<typeof webhookTransformRequest>;

export const webhookTransformResponse = z.looseObject({
  data: z.record(z.string(), z.array(jsonObject)),
});
export type WebhookTransformResponse = z.infer<typeof webhookTransformResponse>;

/**
 * Response of `POST /api/v1/synchronizer/webhooks/pre-process`, as apps in production answer it
 * (the spec does not show it): `reply`, the body the service answers the third party with (a
 * challenge echo, `{ok: true}`), and `workspaceIds`, the workspaces the event concerns: those
 * the apps' `install` answered as `workspaceId`.
 */
export const webhookPreProcessResponse = z.looseObject({
  reply: z.unknown().optional(),
  workspaceIds: z.array(z.string()),
});
export type WebhookPreProcessResponse = z.infer<typeof webhookPreProcessResponse>;
