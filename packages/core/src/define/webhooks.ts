import type { Logger } from '../logging/logger.js';
import type { Webhook } from '../protocol/index.js';
import type { Marker } from './markers.js';

interface WebhookBaseContext<A, F> {
  account: A;
  filter: F;
  types: readonly string[];
  signal: AbortSignal;
  log: Logger;
}

export interface WebhookInstallContext<A, F> extends WebhookBaseContext<A, F> {
  /** The webhook installed earlier, on update and reinstall; null on a first install. */
  webhook: Webhook | null;
  /**
   * Where the third party must send events: register this address with it. Sent by the service;
   * undefined when a caller leaves it out.
   */
  url: string | undefined;
}

export interface WebhookDeleteContext<A, F> extends WebhookBaseContext<A, F> {
  webhook: Webhook;
}

export interface WebhookEventContext {
  /** The event's parameters (headers and query of the third party's call). */
  params: Record<string, unknown>;
  /** The event body as the external system sent it. */
  payload: unknown;
  signal: AbortSignal;
  log: Logger;
}

export interface WebhookTransformContext<A, F> extends WebhookEventContext, WebhookBaseContext<A, F> {}

export interface PreProcessContext {
  /** The third party's raw body, for signature checks. */
  rawBody: Buffer;
  /** Lower-cased request headers. */
  headers: Record<string, string | string[] | undefined>;
  query: Record<string, unknown>;
  signal: AbortSignal;
  log: Logger;
}

export interface PreProcessResult {
  /**
   * The body the service answers the third party with (a challenge echo, `{ok: true}`); a string
   * goes as text. Default `{}`. To refuse the event (a bad signature), throw
   * `WebhookSignatureError` instead.
   */
  reply?: unknown;
  /** The workspaces the event concerns: the `workspaceId`s `install` returned. */
  workspaceIds: readonly string[];
}

/** Items per type produced from an event; `remove(id)` markers become REMOVE rows. */
export type TransformResult = Record<string, ReadonlyArray<Record<string, unknown> | Marker>>;

/** What `install` returns; the service stores it and sends it back as `webhook`. */
export interface WebhookInstallResult {
  id: string;
  events: readonly string[];
  /**
   * The pre-process flow: the workspace the webhook belongs to (an upstream account or company
   * id), which `preProcess` names in `workspaceIds` for the events it concerns. Any other key is
   * passed on too.
   */
  workspaceId?: string;
  [key: string]: unknown;
}

/** Webhook support of an integration app (spec section 6). */
export interface WebhooksDefinition<A, F> {
  /** Installs (or updates, or reinstalls) the webhook in the external system. */
  install: (ctx: WebhookInstallContext<A, F>) => Promise<WebhookInstallResult>;
  /** Removes it. */
  uninstall: (ctx: WebhookDeleteContext<A, F>) => Promise<void>;
  /** Checks an event is authentic and returns the webhook id it belongs to. */
  verify: (ctx: WebhookEventContext) => Promise<{ id: string } | string>;
  /** Turns an event into items per type, applied as a delta. */
  transform: (ctx: WebhookTransformContext<A, F>) => Promise<TransformResult>;
  /** The newer flow: checks the raw request and says which workspaces it concerns. */
  preProcess?: (ctx: PreProcessContext) => Promise<PreProcessResult>;
}
