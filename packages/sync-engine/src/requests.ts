import { PROTOCOL_PATHS } from '@weft/core/protocol';
import type { ExchangeRequest } from './exchange.js';

// Every request the service sends an app, as method, path and body: one place that knows the
// paths and body shapes. `AppClient`'s methods send these and parse the answers; the conformance
// kit sends the same requests and judges the raw answers.

type Json = Record<string, unknown>;

/**
 * The body of a data request. The service may leave `pagination` and `lastSynchronizedAt` out
 * rather than sending null, so they are optional here; `filter` it always sends (`{}` when the
 * user set none), and apps in production rely on it.
 */
export interface DataRequestBody {
  requestedType: string;
  /** every type of the sync, for context */
  types: string[];
  filter: Json;
  account: Json;
  /** null (or absent) on the first page, then the previous page's `nextPageConfig` */
  pagination?: Json | null;
  lastSynchronizedAt?: string | null;
  operationId?: string;
  /**
   * The schema of the sync's types, keyed by type id and field id, as the service read the app's
   * own schema answer. Apps in production read their field definitions back from it
   * (`schema[requestedType]`) and refuse a data request without it.
   */
  schema?: Json;
}

/** What the provider's OAuth 2 callback brought back. */
export interface OAuth2Callback {
  code: string;
  state?: string;
  /** every query parameter of the callback (the code and state among them) */
  params?: Record<string, string>;
}

export interface WebhookScope {
  types: string[];
  filter: Json;
  account: Json;
}

export const appRequests = {
  descriptor: (): ExchangeRequest => ({ method: 'GET', path: PROTOCOL_PATHS.descriptor }),
  logo: (): ExchangeRequest => ({ method: 'GET', path: PROTOCOL_PATHS.logo }),
  validate: (authId: string, fields: Json): ExchangeRequest => ({
    method: 'POST',
    path: PROTOCOL_PATHS.validate,
    body: { id: authId, fields },
  }),
  config: (account: Json): ExchangeRequest => ({
    method: 'POST',
    path: PROTOCOL_PATHS.config,
    body: { account },
  }),
  /** `filter` left out: the schema asked without one (the service does so before a filter is set) */
  schema: (types: string[], filter: Json | undefined, account: Json): ExchangeRequest => ({
    method: 'POST',
    path: PROTOCOL_PATHS.schema,
    body: filter === undefined ? { types, account } : { types, filter, account },
  }),
  data: (body: DataRequestBody): ExchangeRequest => ({ method: 'POST', path: PROTOCOL_PATHS.data, body }),
  /** `dependsOn` left out: a datalist asked without the values of the fields it depends on */
  datalist: (field: string, types: string[], account: Json, dependsOn?: Json): ExchangeRequest => ({
    method: 'POST',
    path: PROTOCOL_PATHS.datalist,
    body: dependsOn === undefined ? { types, account, field } : { types, account, field, dependsOn },
  }),
  validateFilter: (types: string[], filter: Json, account: Json): ExchangeRequest => ({
    method: 'POST',
    path: PROTOCOL_PATHS.filterValidate,
    body: { types, filter, account },
  }),
  installWebhook: (input: WebhookScope & { webhook: Json | null; url: string }): ExchangeRequest => ({
    method: 'POST',
    path: PROTOCOL_PATHS.webhooks,
    body: input,
  }),
  deleteWebhook: (input: WebhookScope & { webhook: Json }): ExchangeRequest => ({
    method: 'DELETE',
    path: PROTOCOL_PATHS.webhooks,
    body: input,
  }),
  verifyWebhook: (params: Json, payload: unknown): ExchangeRequest => ({
    method: 'POST',
    path: PROTOCOL_PATHS.webhooksVerify,
    body: { params, payload },
  }),
  transformWebhook: (input: {
    params: Json;
    payload: unknown;
    types: string[];
    filter: Json;
    account: Json;
  }): ExchangeRequest => ({ method: 'POST', path: PROTOCOL_PATHS.webhooksTransform, body: input }),
  /** The newer webhook flow: the raw incoming request, for the app to check and answer. */
  preProcessWebhook: (input: {
    params: Json;
    headers: Record<string, string>;
    body: string;
    types: string[];
    account: Json;
  }): ExchangeRequest => ({ method: 'POST', path: PROTOCOL_PATHS.webhooksPreProcess, body: input }),
  execute: (action: string, args: Json, account: Json): ExchangeRequest => ({
    method: 'POST',
    path: PROTOCOL_PATHS.execute,
    body: { action: { action, args }, account },
  }),
  oauth2Authorize: (callbackUri: string, state: string): ExchangeRequest => ({
    method: 'POST',
    path: PROTOCOL_PATHS.oauth2Authorize,
    body: { callback_uri: callbackUri, state },
  }),
  /**
   * OAuth 2: the code, with the `state` and every other query parameter of the provider's callback
   * at the top level, as the service forwards them: providers put what the account needs there
   * (QuickBooks its `realmId`, Zoho its `accounts-server`). `state` is in `fields` too.
   */
  oauth2AccessToken: (callbackUri: string, callback: OAuth2Callback): ExchangeRequest => {
    const { code, state, params = {} } = callback;
    const forwarded = Object.fromEntries(
      Object.entries(params).filter(([key]) => key !== 'fields' && key !== 'code' && key !== 'state'),
    );
    return {
      method: 'POST',
      path: PROTOCOL_PATHS.oauth2AccessToken,
      body: {
        fields: { callback_uri: callbackUri, ...(state ? { state } : {}) },
        code,
        ...(state ? { state } : {}),
        ...forwarded,
      },
    };
  },
  /** OAuth 1: the callback carries the state, as the service sends it. */
  oauth1Authorize: (callbackUri: string): ExchangeRequest => ({
    method: 'POST',
    path: PROTOCOL_PATHS.oauth1Authorize,
    body: { callback_uri: callbackUri },
  }),
} as const;
