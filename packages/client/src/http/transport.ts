// Every HTTP call of the client goes through here: authorization, the rate budget, 429 handling,
// safe retries, and turning failures into WorkspaceError. Nothing here logs or reports the token.
import { setTimeout as sleep } from 'node:timers/promises';
import type { RateBudget } from '../budget/rate-budget.js';
import { WorkspaceError } from '../errors.js';

export interface TransportOptions {
  baseUrl: URL;
  token: string;
  budget: RateBudget;
  fetch: typeof fetch;
  /** Attempts after a 429 before giving up (each waits the service's Retry-After). */
  max429Retries: number;
  /** Attempts after a network failure or 5xx, for requests that are safe to repeat. */
  maxRetries: number;
  timeoutMs: number;
  onEvent?: (event: TransportEvent) => void;
}

/** What the client reports for observability; never carries a header or body. */
export type TransportEvent =
  | { type: 'request'; method: string; path: string; status: number; attempt: number; ms: number }
  | { type: 'rate-limited'; method: string; path: string; retryAfterMs: number }
  | { type: 'retry'; method: string; path: string; attempt: number; reason: string };

export interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  query?: Record<string, string | undefined>;
  /** JSON body. */
  json?: unknown;
  /** A body built anew for every attempt; `replayable: false` when it can be read only once. */
  body?: {
    make: () => { body: NonNullable<RequestInit['body']>; contentType?: string };
    replayable: boolean;
  };
  /** Safe to send again after a failure where the service may have acted (reads, deletes by id). */
  idempotent: boolean;
  /** Extra headers (never logged). */
  headers?: Record<string, string>;
}

export interface TransportStats {
  requests: number;
  rateLimited: number;
  retries: number;
}

export class Transport {
  readonly stats: TransportStats = { requests: 0, rateLimited: 0, retries: 0 };

  constructor(readonly options: TransportOptions) {}

  /** Sends the request and returns the successful response (2xx); throws WorkspaceError otherwise. */
  async send(spec: RequestSpec, signal?: AbortSignal): Promise<Response> {
    const { options } = this;
    const url = new URL(spec.path.replace(/^\//, ''), options.baseUrl);
    for (const [k, v] of Object.entries(spec.query ?? {})) if (v !== undefined) url.searchParams.set(k, v);
    const label = `${spec.method} ${url.pathname}`;
    let rateRetries = 0;
    let otherRetries = 0;
    for (let attempt = 1; ; attempt++) {
      // The body is built before the slot is taken, so nothing between taking the slot and
      // reporting its answer can throw.
      const headers: Record<string, string> = {
        ...spec.headers,
        authorization: `Token ${options.token}`,
        accept: 'application/json',
      };
      let body: NonNullable<RequestInit['body']> | undefined;
      if (spec.json !== undefined) {
        body = JSON.stringify(spec.json);
        headers['content-type'] = 'application/json';
      } else if (spec.body) {
        const made = spec.body.make();
        body = made.body;
        // FormData bodies set their own multipart boundary.
        if (made.contentType) headers['content-type'] = made.contentType;
      }
      const answered = await options.budget.acquire(signal);
      const started = performance.now();
      let response: Response;
      try {
        const timeout = AbortSignal.timeout(options.timeoutMs);
        response = await options.fetch(url, {
          method: spec.method,
          headers,
          body,
          signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
          ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
        } as RequestInit);
      } catch (error) {
        await answered();
        if (signal?.aborted) throw error;
        const reason = networkReason(error);
        // A refused connection never reached the service, so any request may be sent again;
        // other failures may have happened after the service acted.
        const neverSent = reason === 'ECONNREFUSED';
        const replayable = !spec.body || spec.body.replayable;
        if ((neverSent || spec.idempotent) && replayable && otherRetries < options.maxRetries) {
          otherRetries++;
          this.stats.retries++;
          options.onEvent?.({ type: 'retry', method: spec.method, path: url.pathname, attempt, reason });
          await sleep(backoff(otherRetries));
          continue;
        }
        throw new WorkspaceError({ kind: 'network', serviceMessage: reason, request: label });
      }
      // The service has handled the request once its answer starts: the slot counts from now.
      await answered();
      this.stats.requests++;
      options.onEvent?.({
        type: 'request',
        method: spec.method,
        path: url.pathname,
        status: response.status,
        attempt,
        ms: Math.round(performance.now() - started),
      });
      if (response.ok) return response;

      const message = await serviceMessage(response);
      if (response.status === 429) {
        // The service did not act on a refused request, so repeating it is always safe.
        this.stats.rateLimited++;
        const wait = retryAfterMs(response.headers.get('retry-after'));
        options.onEvent?.({
          type: 'rate-limited',
          method: spec.method,
          path: url.pathname,
          retryAfterMs: wait,
        });
        await options.budget.refused(wait);
        const replayable = !spec.body || spec.body.replayable;
        if (replayable && rateRetries < options.max429Retries) {
          rateRetries++;
          this.stats.retries++;
          continue;
        }
      } else if (response.status >= 500 && spec.idempotent && otherRetries < options.maxRetries) {
        if (!spec.body || spec.body.replayable) {
          otherRetries++;
          this.stats.retries++;
          options.onEvent?.({
            type: 'retry',
            method: spec.method,
            path: url.pathname,
            attempt,
            reason: `${response.status}`,
          });
          await sleep(backoff(otherRetries));
          continue;
        }
      }
      throw new WorkspaceError({
        kind: 'http',
        status: response.status,
        serviceMessage: message,
        request: label,
        retryable: response.status === 429 || response.status >= 500,
      });
    }
  }

  async json<T = unknown>(spec: RequestSpec, signal?: AbortSignal): Promise<T> {
    const response = await this.send(spec, signal);
    const text = await response.text();
    if (text === '') return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new WorkspaceError({
        kind: 'protocol',
        status: response.status,
        serviceMessage: 'the answer is not JSON',
        request: `${spec.method} ${spec.path.split('?')[0]}`,
      });
    }
  }
}

/** `Retry-After` is seconds or an HTTP date; absent or unreadable means one second. */
export function retryAfterMs(header: string | null): number {
  if (header === null || header.trim() === '') return 1000;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, Math.ceil(seconds * 1000));
  const date = Date.parse(header);
  if (Number.isFinite(date)) return Math.max(0, date - Date.now());
  return 1000;
}

async function serviceMessage(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { message?: unknown; error?: unknown };
    if (typeof body.message === 'string') return body.message;
    if (typeof body.error === 'string') return body.error;
    if (body.error && typeof (body.error as { message?: unknown }).message === 'string') {
      return (body.error as { message: string }).message;
    }
  } catch {
    // not JSON: use the text
  }
  return text.slice(0, 500) || response.statusText || `HTTP ${response.status}`;
}

function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code) return cause.code;
  if ((error as { name?: string }).name === 'TimeoutError') return 'timed out';
  return (error as Error).message ?? 'request failed';
}

function backoff(attempt: number): number {
  return Math.min(4000, 200 * 2 ** (attempt - 1));
}
