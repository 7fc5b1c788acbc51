import { type DataResponse, PROTOCOL_PATHS, type SchemaResponse } from '@weft/core/protocol';
import type { z } from 'zod';
import { answerOf } from './answer.js';
import { AppCallError } from './app-call-error.js';
import { classifyDataAnswer, type DataOutcome, type DataPage } from './data-page.js';
import type { Exchanger } from './exchange-thread.js';
import { type Exchange, type ExchangeRequest, type SendOptions, sendExchange } from './exchange.js';
import { checkSchemaSize, MAX_ANSWER_BYTES, MAX_DATA_ANSWER_BYTES } from './limits.js';
import {
  type ReadConfig,
  type ReadDescriptor,
  type ReaderWarning,
  type ReadResult,
  readActionAnswer,
  readConfig,
  readDatalistAnswer,
  readDescriptor,
  readOauth2AuthorizeAnswer,
  readOauthAccountAnswer,
  readSchema,
  readTransformAnswer,
  readValidateAnswer,
  readWebhookAnswer,
} from './reader/index.js';
import { appRequests, type DataRequestBody, type OAuth2Callback } from './requests.js';

// The service's side of the app protocol: one method per endpoint, answers read leniently as the
// service reads them (reader/), not with core's exact emit schemas. Bodies sent to the app carry accounts, so nothing here ever puts a request body
// into an error: errors carry the path, the status and the app's own `{message}`.

type Json = Record<string, unknown>;

export interface AppClientOptions {
  /** per request; default 60 s */
  timeoutMs?: number;
  /** `manual` shows a redirect as the 3xx answer it is, as a judge wants; default `follow` */
  redirect?: 'follow' | 'manual';
  /**
   * A kept-alive connection the app closed meanwhile is tried once more on a new connection;
   * default true. A judge that must see the closed connection turns it off.
   */
  reconnect?: boolean;
  /**
   * Sees every exchange once it is complete (status, headers, raw body, duration), whichever
   * method sent it. Its request body holds the account: never log it. A throwing observer does
   * not break the call.
   */
  onExchange?: (exchange: Exchange) => void;
  /**
   * Keep the raw text of JSON answers in the exchange (default true, as a judge wants); false
   * for a caller that reads only the parsed answers (the host), so a page is held once, not twice.
   */
  keepJsonText?: boolean;
  /** Largest answer body of a call, in bytes; default MAX_ANSWER_BYTES (4 MiB) */
  maxAnswerBytes?: number;
  /** Largest answer body of a data page, in bytes; default MAX_DATA_ANSWER_BYTES (64 MiB) */
  maxDataAnswerBytes?: number;
  /**
   * Sees what the reader took although the spec's tables would not have, or left out (a field it
   * could not read), for every answer read; data pages also carry theirs in `warnings`.
   */
  onWarning?: (warning: ReaderWarning) => void;
  /**
   * What sends each request and records its exchange; default sendExchange, in this thread. The
   * host passes an ExchangeThread's `send` (exchange-thread.ts), so answers are read and parsed
   * on a thread of their own.
   */
  exchanger?: Exchanger;
}

export interface DataRequestInput {
  requestedType: string;
  types: string[];
  filter: Json;
  account: Json;
  /** null on the first page, then the previous page's `nextPageConfig` */
  pagination: Json | null;
  lastSynchronizedAt: string | null;
  operationId?: string;
}

/** An app's answer checked against the protocol's schema; a mismatch names the path and the field. */
export function parseAnswer<T>(schema: z.ZodType<T>, path: string, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AppCallError(
      `${path}: unexpected answer (${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'})`,
      { path, status: 200 },
    );
  }
  return parsed.data;
}

export class AppClient {
  readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly options: AppClientOptions;

  constructor(baseUrl: string, options: AppClientOptions = {}) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.options = options;
  }

  /**
   * Sends one request and records the exchange; never throws (no answer is an exchange with
   * `failure`). Every other method goes through here, so a subclass that overrides it sees,
   * and may answer in place of, every request.
   */
  async send(request: ExchangeRequest, options: SendOptions = {}): Promise<Exchange> {
    const exchange = await (this.options.exchanger ?? sendExchange)(this.baseUrl, request, options.rawBody, {
      timeoutMs: options.timeoutMs ?? this.timeoutMs,
      maxBytes: options.maxBytes ?? this.options.maxAnswerBytes ?? MAX_ANSWER_BYTES,
      redirect: this.options.redirect ?? 'follow',
      reconnect: this.options.reconnect ?? true,
      ...(this.options.keepJsonText === false ? { keepJsonText: false } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    try {
      this.options.onExchange?.(exchange);
    } catch {
      // an observer's failure is not the app's
    }
    return exchange;
  }

  /** One JSON call; a non-2xx answer throws AppCallError with the app's message and tryLater flag. */
  async call(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<unknown> {
    const request: ExchangeRequest = body === undefined ? { method, path } : { method, path, body };
    return answerOf(await this.send(request, signal ? { signal } : {}));
  }

  private async request(request: ExchangeRequest, signal?: AbortSignal): Promise<unknown> {
    return answerOf(await this.send(request, signal ? { signal } : {}));
  }

  /** The read value; a problem throws AppCallError naming the path; warnings go to `onWarning`. */
  private take<T>(read: ReadResult<T>, path: string): T {
    for (const w of read.warnings) {
      try {
        this.options.onWarning?.(w);
      } catch {
        // an observer's failure is not the app's
      }
    }
    if (!read.ok)
      throw new AppCallError(`${path}: unexpected answer (${read.problem})`, { path, status: 200 });
    return read.value;
  }

  async descriptor(signal?: AbortSignal): Promise<ReadDescriptor> {
    return this.take(readDescriptor(await this.request(appRequests.descriptor(), signal)), '/');
  }

  /** The logo as SVG text, or undefined (204, an error, or not SVG: the service shows a default). */
  async logo(signal?: AbortSignal): Promise<string | undefined> {
    const exchange = await this.send(appRequests.logo(), signal ? { signal } : {});
    const text = exchange.text;
    if (exchange.status !== 200 || text === undefined) return undefined;
    return /<svg[\s>]/i.test(text) && text.length < 512_000 ? text : undefined;
  }

  async validate(authId: string, fields: Json, signal?: AbortSignal): Promise<Json & { name: string }> {
    const answer = await this.request(appRequests.validate(authId, fields), signal);
    return this.take(readValidateAnswer(answer), PROTOCOL_PATHS.validate);
  }

  async config(account: Json, signal?: AbortSignal): Promise<ReadConfig> {
    return this.take(
      readConfig(await this.request(appRequests.config(account), signal)),
      PROTOCOL_PATHS.config,
    );
  }

  async schema(types: string[], filter: Json, account: Json, signal?: AbortSignal): Promise<SchemaResponse> {
    return (await this.readSchema(types, filter, account, signal)).value;
  }

  /**
   * The schema with what the reader took or left out to read it (a field it could not read is
   * left out, the rest syncs), for a caller that shows those warnings with the sync.
   */
  async readSchema(
    types: string[],
    filter: Json,
    account: Json,
    signal?: AbortSignal,
  ): Promise<{ value: SchemaResponse; warnings: ReaderWarning[] }> {
    const answer = await this.request(appRequests.schema(types, filter, account), signal);
    checkSchemaSize(PROTOCOL_PATHS.schema, answer);
    const read = readSchema(answer, types);
    return { value: this.take(read, PROTOCOL_PATHS.schema), warnings: read.warnings };
  }

  /**
   * One data request, its answer read as the service does and classified: a page, a request to
   * try later, or an error. Never throws; the outcome carries the raw exchange.
   */
  async dataPage(body: DataRequestBody, options: SendOptions = {}): Promise<DataOutcome> {
    const maxBytes = options.maxBytes ?? this.options.maxDataAnswerBytes ?? MAX_DATA_ANSWER_BYTES;
    return classifyDataAnswer(await this.send(appRequests.data(body), { ...options, maxBytes }));
  }

  /** One data page, read leniently as the service does (only `items` is required); throws AppCallError. */
  async data(request: DataRequestInput, signal?: AbortSignal): Promise<DataPage> {
    const outcome = await this.dataPage(request, signal ? { signal } : {});
    if (outcome.kind !== 'page') throw outcome.error;
    return outcome.page;
  }

  async datalist(field: string, types: string[], account: Json, dependsOn: Json, signal?: AbortSignal) {
    const answer = await this.request(appRequests.datalist(field, types, account, dependsOn), signal);
    return this.take(readDatalistAnswer(answer), PROTOCOL_PATHS.datalist).items;
  }

  /** Resolves when the app accepts the filter; throws AppCallError (status 400, the app's message) when not. */
  async validateFilter(types: string[], filter: Json, account: Json, signal?: AbortSignal): Promise<void> {
    await this.request(appRequests.validateFilter(types, filter, account), signal);
  }

  async installWebhook(
    input: { types: string[]; filter: Json; account: Json; webhook: Json | null; url: string },
    signal?: AbortSignal,
  ): Promise<Json & { id: string | number }> {
    const answer = await this.request(appRequests.installWebhook(input), signal);
    return this.take(readWebhookAnswer(answer), PROTOCOL_PATHS.webhooks);
  }

  async deleteWebhook(
    input: { types: string[]; filter: Json; account: Json; webhook: Json },
    signal?: AbortSignal,
  ): Promise<void> {
    await this.request(appRequests.deleteWebhook(input), signal);
  }

  /** The webhook id the event belongs to. */
  async verifyWebhook(params: Json, payload: unknown, signal?: AbortSignal): Promise<string> {
    const answer = await this.request(appRequests.verifyWebhook(params, payload), signal);
    return String(this.take(readWebhookAnswer(answer, 'webhooks/verify'), PROTOCOL_PATHS.webhooksVerify).id);
  }

  async transformWebhook(
    input: { params: Json; payload: unknown; types: string[]; filter: Json; account: Json },
    signal?: AbortSignal,
  ): Promise<Record<string, Json[]>> {
    const answer = await this.request(appRequests.transformWebhook(input), signal);
    return this.take(readTransformAnswer(answer), PROTOCOL_PATHS.webhooksTransform).data;
  }

  /** Resolves when the action ran (any 2xx answer); throws AppCallError with the app's message when not. */
  async execute(action: string, args: Json, account: Json, signal?: AbortSignal): Promise<Json> {
    const answer = await this.request(appRequests.execute(action, args, account), signal);
    return this.take(readActionAnswer(answer), PROTOCOL_PATHS.execute);
  }

  async oauth2Authorize(callbackUri: string, state: string, signal?: AbortSignal): Promise<string> {
    const answer = await this.request(appRequests.oauth2Authorize(callbackUri, state), signal);
    return this.take(readOauth2AuthorizeAnswer(answer), PROTOCOL_PATHS.oauth2Authorize).redirect_uri;
  }

  async oauth2AccessToken(
    callbackUri: string,
    callback: OAuth2Callback,
    signal?: AbortSignal,
  ): Promise<Json> {
    const answer = await this.request(appRequests.oauth2AccessToken(callbackUri, callback), signal);
    return this.take(readOauthAccountAnswer(answer), PROTOCOL_PATHS.oauth2AccessToken);
  }
}

export type { DataPage, DataResponse };
