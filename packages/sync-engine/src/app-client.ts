import {
  configResponse,
  datalistResponse,
  type DataResponse,
  descriptor,
  type Descriptor,
  oauth2AuthorizeResponse,
  PROTOCOL_PATHS,
  schemaResponse,
  type SchemaResponse,
  synchronizationType,
  validateResponse,
} from '@weft/core/protocol';
import { z } from 'zod';
import { AppCallError } from './app-call-error.js';

// The service's side of the app protocol: one method per endpoint, answers checked with core's
// zod schemas. Bodies sent to the app carry accounts, so nothing here ever puts a request body
// into an error: errors carry the path, the status and the app's own `{message}`.

type Json = Record<string, unknown>;

export interface AppClientOptions {
  /** per request; default 60 s */
  timeoutMs?: number;
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

/** A data page as the service reads it: absent `pagination` means no next page, absent type means full. */
export interface DataPage {
  items: Json[];
  hasNext: boolean;
  nextPageConfig: Json | null;
  synchronizationType: 'full' | 'delta';
}

const lenientData = z.looseObject({
  items: z.array(z.record(z.string(), z.unknown())),
  pagination: z
    .looseObject({
      hasNext: z.boolean().optional(),
      nextPageConfig: z.record(z.string(), z.unknown()).nullish(),
    })
    .nullish(),
  synchronizationType: synchronizationType.optional(),
});

const webhookObject = z.looseObject({ id: z.union([z.string(), z.number()]) });
const transformAnswer = z.looseObject({
  data: z.record(z.string(), z.array(z.record(z.string(), z.unknown()))),
});

export class AppClient {
  readonly baseUrl: string;
  private readonly timeoutMs: number;

  constructor(baseUrl: string, options: AppClientOptions = {}) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? 60_000;
  }

  /** One JSON call; a non-2xx answer throws AppCallError with the app's message and tryLater flag. */
  async call(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<unknown> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const init: RequestInit = {
      method,
      headers: {
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    };
    if (body !== undefined) init.body = JSON.stringify(body);
    let response: Response;
    try {
      response = await fetch(this.baseUrl + path, init).catch((error: { cause?: { code?: string } }) => {
        // A kept-alive connection the app closed meanwhile: one new connection is tried.
        if (error?.cause?.code === 'UND_ERR_SOCKET' || error?.cause?.code === 'ECONNRESET')
          return fetch(this.baseUrl + path, init);
        throw error;
      });
    } catch (error) {
      const e = error as { name?: string; cause?: { code?: string } };
      const why =
        e?.name === 'TimeoutError'
          ? `no answer within ${this.timeoutMs} ms`
          : `no connection (${e?.cause?.code ?? e?.name ?? 'error'})`;
      throw new AppCallError(`${method} ${path}: ${why}`, { path, status: 0, retryable: true });
    }
    const text = await response.text();
    let json: unknown;
    try {
      json = text.length > 0 ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    if (!response.ok) {
      const o = (json ?? {}) as { message?: unknown; tryLater?: unknown };
      const message = typeof o.message === 'string' ? o.message.slice(0, 500) : `HTTP ${response.status}`;
      const retryAfter = Number(response.headers.get('retry-after'));
      throw new AppCallError(`${method} ${path}: ${message}`, {
        path,
        status: response.status,
        appMessage: message,
        tryLater: o.tryLater === true,
        retryable: o.tryLater === true,
        ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterMs: retryAfter * 1000 } : {}),
      });
    }
    if (json === undefined && text.length > 0) {
      throw new AppCallError(`${method} ${path}: the answer is not JSON`, { path, status: response.status });
    }
    return json;
  }

  private parse<T>(schema: z.ZodType<T>, path: string, value: unknown): T {
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

  async descriptor(signal?: AbortSignal): Promise<Descriptor> {
    return this.parse(descriptor, '/', await this.call('GET', PROTOCOL_PATHS.descriptor, undefined, signal));
  }

  /** The logo as SVG text, or undefined (204, an error, or not SVG: the service shows a default). */
  async logo(signal?: AbortSignal): Promise<string | undefined> {
    try {
      const timeout = AbortSignal.timeout(this.timeoutMs);
      const response = await fetch(this.baseUrl + PROTOCOL_PATHS.logo, {
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      if (response.status !== 200) return undefined;
      const text = await response.text();
      return /<svg[\s>]/i.test(text) && text.length < 512_000 ? text : undefined;
    } catch {
      return undefined;
    }
  }

  async validate(authId: string, fields: Json, signal?: AbortSignal): Promise<Json & { name: string }> {
    const answer = await this.call('POST', PROTOCOL_PATHS.validate, { id: authId, fields }, signal);
    return this.parse(validateResponse, PROTOCOL_PATHS.validate, answer) as Json & { name: string };
  }

  async config(account: Json, signal?: AbortSignal) {
    return this.parse(
      configResponse,
      PROTOCOL_PATHS.config,
      await this.call('POST', PROTOCOL_PATHS.config, { account }, signal),
    );
  }

  async schema(types: string[], filter: Json, account: Json, signal?: AbortSignal): Promise<SchemaResponse> {
    const answer = await this.call('POST', PROTOCOL_PATHS.schema, { types, filter, account }, signal);
    return this.parse(schemaResponse, PROTOCOL_PATHS.schema, answer);
  }

  /** One data page, read leniently as the service does (only `items` is required). */
  async data(request: DataRequestInput, signal?: AbortSignal): Promise<DataPage> {
    const answer = await this.call('POST', PROTOCOL_PATHS.data, request, signal);
    const page = this.parse(lenientData, PROTOCOL_PATHS.data, answer);
    const hasNext = page.pagination?.hasNext === true;
    return {
      items: page.items,
      hasNext,
      nextPageConfig: hasNext ? (page.pagination?.nextPageConfig ?? {}) : null,
      synchronizationType: page.synchronizationType ?? 'full',
    };
  }

  async datalist(field: string, types: string[], account: Json, dependsOn: Json, signal?: AbortSignal) {
    const answer = await this.call(
      'POST',
      PROTOCOL_PATHS.datalist,
      { types, account, field, dependsOn },
      signal,
    );
    return this.parse(datalistResponse, PROTOCOL_PATHS.datalist, answer).items;
  }

  /** Resolves when the app accepts the filter; throws AppCallError (status 400, the app's message) when not. */
  async validateFilter(types: string[], filter: Json, account: Json, signal?: AbortSignal): Promise<void> {
    await this.call('POST', PROTOCOL_PATHS.filterValidate, { types, filter, account }, signal);
  }

  async installWebhook(
    input: { types: string[]; filter: Json; account: Json; webhook: Json | null; url: string },
    signal?: AbortSignal,
  ): Promise<Json & { id: string | number }> {
    const answer = await this.call('POST', PROTOCOL_PATHS.webhooks, input, signal);
    return this.parse(webhookObject, PROTOCOL_PATHS.webhooks, answer) as Json & { id: string | number };
  }

  async deleteWebhook(
    input: { types: string[]; filter: Json; account: Json; webhook: Json },
    signal?: AbortSignal,
  ): Promise<void> {
    await this.call('DELETE', PROTOCOL_PATHS.webhooks, input, signal);
  }

  /** The webhook id the event belongs to. */
  async verifyWebhook(params: Json, payload: unknown, signal?: AbortSignal): Promise<string> {
    const answer = await this.call('POST', PROTOCOL_PATHS.webhooksVerify, { params, payload }, signal);
    return String(this.parse(webhookObject, PROTOCOL_PATHS.webhooksVerify, answer).id);
  }

  async transformWebhook(
    input: { params: Json; payload: unknown; types: string[]; filter: Json; account: Json },
    signal?: AbortSignal,
  ): Promise<Record<string, Json[]>> {
    const answer = await this.call('POST', PROTOCOL_PATHS.webhooksTransform, input, signal);
    return this.parse(transformAnswer, PROTOCOL_PATHS.webhooksTransform, answer).data;
  }

  async execute(action: string, args: Json, account: Json, signal?: AbortSignal): Promise<unknown> {
    return this.call('POST', PROTOCOL_PATHS.execute, { action: { action, args }, account }, signal);
  }

  async oauth2Authorize(callbackUri: string, state: string, signal?: AbortSignal): Promise<string> {
    const answer = await this.call(
      'POST',
      PROTOCOL_PATHS.oauth2Authorize,
      { callback_uri: callbackUri, state },
      signal,
    );
    return this.parse(oauth2AuthorizeResponse, PROTOCOL_PATHS.oauth2Authorize, answer).redirect_uri;
  }

  async oauth2AccessToken(callbackUri: string, code: string, signal?: AbortSignal): Promise<Json> {
    const answer = await this.call(
      'POST',
      PROTOCOL_PATHS.oauth2AccessToken,
      { fields: { callback_uri: callbackUri }, code },
      signal,
    );
    return this.parse(z.record(z.string(), z.unknown()), PROTOCOL_PATHS.oauth2AccessToken, answer);
  }
}

export type { DataResponse };
