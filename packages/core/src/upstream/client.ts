import { InvalidAccountError, TryLaterError, UpstreamError, WeftError } from '../errors/errors.js';
import type { Logger } from '../logging/logger.js';
import { redact } from '../logging/redact.js';
import type { UpstreamAuth } from './auth.js';
import { CassetteError, cassetteFetch, type UpstreamFetch } from './cassette.js';

/** HTTP methods `createUpstream` can send. */
export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

const IDEMPOTENT = new Set<string>(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

/** Query values; arrays repeat the key, `undefined` is skipped. */
export type QueryValue =
  | string
  | number
  | boolean
  | undefined
  | null
  | readonly (string | number | boolean)[];

/** Options of {@link createUpstream}. */
export interface UpstreamOptions {
  /** Base address; request paths are resolved against it (`/v1/items` keeps the base's path prefix). */
  baseUrl: string;
  /** How to authenticate: `bearer(token)`, `basic(user, password)`, `oauth1Auth({...})`, `header(name, value)`. */
  auth?: UpstreamAuth;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** Time limit of one attempt in ms; default 15000. */
  timeoutMs?: number;
  /** Retries after the first attempt; default 3. */
  retries?: number;
  /** Base of the exponential backoff in ms (full jitter); default 250. */
  backoff?: number;
  /** Longest single backoff wait in ms; default 10000. */
  maxBackoffMs?: number;
  /** Longest `Retry-After` waited for in-process, in seconds; default 30. Longer asks the service to retry later. */
  maxRetryAfterSeconds?: number;
  /** The handler's signal: aborting stops the request and any wait at once. */
  signal?: AbortSignal;
  /** Receives a warning for every retry. */
  log?: Logger;
  /** Extra strings to redact from error messages (credentials the auth builder does not know). */
  secrets?: readonly string[];
  /** Cassette file for `WEFT_UPSTREAM=record|replay`; default `WEFT_CASSETTE` (see `useCassette`). */
  cassette?: string;
}

/** Per-request options. */
export interface UpstreamRequestInit {
  /** Query parameters, appended to the path's own query. */
  query?: Record<string, QueryValue>;
  headers?: Record<string, string>;
  /** Sent as JSON with `Content-Type: application/json`. */
  json?: unknown;
  /** Form parameters sent as `application/x-www-form-urlencoded` (signed by OAuth 1). */
  form?: Record<string, string> | URLSearchParams;
  /** A raw body. */
  body?: string | Uint8Array | Blob | FormData;
  /** Allow retries of a POST or PATCH that is safe to repeat. */
  idempotent?: boolean;
  /** An extra signal for this request only. */
  signal?: AbortSignal;
  timeoutMs?: number;
  retries?: number;
}

/** The client returned by {@link createUpstream}. Every method resolves with a 2xx response or throws a `WeftError`. */
export interface Upstream {
  request(method: HttpMethod, path: string, init?: UpstreamRequestInit): Promise<Response>;
  get(path: string, init?: UpstreamRequestInit): Promise<Response>;
  post(path: string, init?: UpstreamRequestInit): Promise<Response>;
  put(path: string, init?: UpstreamRequestInit): Promise<Response>;
  patch(path: string, init?: UpstreamRequestInit): Promise<Response>;
  delete(path: string, init?: UpstreamRequestInit): Promise<Response>;
  /** Sends the request and parses the JSON answer (`undefined` for an empty body). */
  json<T = unknown>(method: HttpMethod, path: string, init?: UpstreamRequestInit): Promise<T>;
}

type AttemptOutcome =
  | { kind: 'response'; response: Response }
  | { kind: 'network'; reason: string; error: unknown }
  | { kind: 'timeout' };

/**
 * An HTTP client for the app's upstream API, on global `fetch`. It retries idempotent requests
 * on 5xx, connection errors and timeouts with exponential backoff, honours `Retry-After` on 429
 * and 503, and turns failures into the errors the service understands: `TryLaterError`
 * (`tryLater: true`) for temporary trouble, `InvalidAccountError` (401) for an upstream 401/403,
 * `UpstreamError` (502) for other 4xx answers. Error messages never contain credentials.
 *
 * @example
 * const api = createUpstream({ baseUrl: 'https://api.example.com/v1/', auth: bearer(account.token), signal });
 * const issues = await api.json<Issue[]>('GET', 'issues', { query: { page: 2 } });
 */
export function createUpstream(options: UpstreamOptions): Upstream {
  const base = new URL(options.baseUrl);
  const secrets = [...(options.auth?.secrets ?? []), ...(options.secrets ?? [])];
  const timeoutMs = options.timeoutMs ?? 15_000;
  const backoffBase = options.backoff ?? 250;
  const maxBackoff = options.maxBackoffMs ?? 10_000;
  const maxRetryAfter = options.maxRetryAfterSeconds ?? 30;
  // Live fetch, or the recorder/player of WEFT_UPSTREAM=record|replay (cassette.ts).
  const send = cassetteFetch(options.cassette, secrets);

  const request = async (
    method: HttpMethod,
    path: string,
    init: UpstreamRequestInit = {},
  ): Promise<Response> => {
    const url = resolveUrl(base, path, init.query);
    const where = `${method} ${url.origin}${url.pathname}`;
    const fail = (message: string) => redact(message, secrets);
    const signal = combineSignals([options.signal, init.signal]);
    const idempotent = IDEMPOTENT.has(method) || init.idempotent === true;
    const retries = Math.max(0, init.retries ?? options.retries ?? 3);
    const perAttempt = init.timeoutMs ?? timeoutMs;
    const form = init.form === undefined ? undefined : new URLSearchParams(init.form);

    for (let attempt = 0; ; attempt++) {
      throwIfAborted(signal);
      const left = retries - attempt;
      const headers: Record<string, string> = { ...options.headers, ...init.headers };
      let body: string | Uint8Array | Blob | FormData | undefined = init.body;
      if (init.json !== undefined) {
        body = JSON.stringify(init.json);
        headers['Content-Type'] ??= 'application/json';
      } else if (form) {
        body = form.toString();
        headers['Content-Type'] ??= 'application/x-www-form-urlencoded';
      }
      headers.Accept ??= 'application/json';
      Object.assign(headers, options.auth?.headers({ method, url, ...(form ? { form } : {}) }));

      const outcome = await attemptOnce(send, url, { method, headers, body }, perAttempt, signal);
      const retryLog = (reason: string, delayMs: number) =>
        options.log?.warn(
          // The path may be a credential (a webhook URL): redacted like every error message.
          { upstream: fail(where), attempt: attempt + 1, reason: fail(reason), delayMs: Math.round(delayMs) },
          'Retrying upstream request',
        );

      if (outcome.kind !== 'response') {
        const reason = outcome.kind === 'timeout' ? `timed out after ${perAttempt} ms` : outcome.reason;
        if (idempotent && left > 0) {
          const delay = backoffDelay(attempt, backoffBase, maxBackoff);
          retryLog(reason, delay);
          await sleep(delay, signal);
          continue;
        }
        throw new TryLaterError(fail(`Upstream ${where} failed: ${reason}`), {
          status: 503,
          cause: outcome.kind === 'network' ? outcome.error : undefined,
        });
      }

      const { response } = outcome;
      if (response.ok || (response.status >= 300 && response.status < 400)) return response;
      const status = response.status;

      if (status === 429 || status === 503 || status >= 500) {
        const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
        // A 429 means the request was not processed: repeating it is safe whatever the method.
        const mayRetry = status === 429 || idempotent;
        await discard(response);
        if (retryAfter !== undefined && (status === 429 || status === 503)) {
          if (mayRetry && left > 0 && retryAfter <= maxRetryAfter) {
            retryLog(`status ${status}, Retry-After ${retryAfter}s`, retryAfter * 1000);
            await sleep(retryAfter * 1000, signal);
            continue;
          }
          throw new TryLaterError(
            fail(`Upstream ${where} answered ${status}; retry after ${retryAfter} seconds`),
            { status: status === 429 ? 429 : 503, retryAfterSeconds: retryAfter },
          );
        }
        if (mayRetry && left > 0) {
          const delay = backoffDelay(attempt, backoffBase, maxBackoff);
          retryLog(`status ${status}`, delay);
          await sleep(delay, signal);
          continue;
        }
        const tries = attempt + 1;
        throw new TryLaterError(
          fail(`Upstream ${where} answered ${status}${tries > 1 ? ` after ${tries} attempts` : ''}`),
          { status: status === 429 ? 429 : 503 },
        );
      }

      const excerpt = await readExcerpt(response);
      const detail = excerpt ? `: ${excerpt}` : '';
      if (status === 401 || status === 403) {
        throw new InvalidAccountError(fail(`Upstream ${where} refused the credentials (${status})${detail}`));
      }
      throw new UpstreamError(fail(`Upstream ${where} answered ${status}${detail}`), {
        upstreamStatus: status,
      });
    }
  };

  return {
    request,
    get: (path, init) => request('GET', path, init),
    post: (path, init) => request('POST', path, init),
    put: (path, init) => request('PUT', path, init),
    patch: (path, init) => request('PATCH', path, init),
    delete: (path, init) => request('DELETE', path, init),
    async json<T>(method: HttpMethod, path: string, init?: UpstreamRequestInit): Promise<T> {
      const response = await request(method, path, init);
      const text = await response.text();
      if (text.trim() === '') return undefined as T;
      try {
        return JSON.parse(text) as T;
      } catch (error) {
        const url = resolveUrl(base, path, undefined);
        throw new UpstreamError(
          `Upstream ${method} ${url.origin}${url.pathname} answered with invalid JSON`,
          {
            upstreamStatus: response.status,
            cause: error,
          },
        );
      }
    },
  };
}

function resolveUrl(base: URL, path: string, query: UpstreamRequestInit['query']): URL {
  // Keep the base's path prefix for absolute-looking paths: base `https://x/api/v2` + `/items` -> `/api/v2/items`.
  let url: URL;
  if (/^https?:\/\//i.test(path)) {
    url = new URL(path);
  } else if (path === '') {
    // The base itself, e.g. a webhook address: no trailing slash added.
    url = new URL(base.href);
  } else {
    const prefix = base.pathname.endsWith('/') ? base.pathname : `${base.pathname}/`;
    const relative = path.startsWith('/') ? path.slice(1) : path;
    url = new URL(`${prefix}${relative}`, base.origin);
    if (!path.includes('?')) url.search = base.search;
  }
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const item of value) url.searchParams.append(key, String(item));
    else url.searchParams.append(key, String(value));
  }
  return url;
}

async function attemptOnce(
  send: UpstreamFetch,
  url: URL,
  init: {
    method: string;
    headers: Record<string, string>;
    body: string | Uint8Array | Blob | FormData | undefined;
  },
  timeoutMs: number,
  outer: AbortSignal | undefined,
): Promise<AttemptOutcome> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error('timeout'));
  }, timeoutMs);
  const onAbort = () => controller.abort(outer?.reason);
  outer?.addEventListener('abort', onAbort, { once: true });
  try {
    const response = await send(url, {
      method: init.method,
      headers: init.headers,
      ...(init.body === undefined ? {} : { body: init.body as NonNullable<RequestInit['body']> }),
      signal: controller.signal,
    });
    return { kind: 'response', response };
  } catch (error) {
    if (error instanceof CassetteError) throw error; // a replay miss is loud, never retried
    throwIfAborted(outer);
    if (timedOut) return { kind: 'timeout' };
    return { kind: 'network', reason: networkReason(error), error };
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onAbort);
  }
}

/** A short, secret-free description of a fetch failure (`ECONNRESET`, `socket hang up`...). */
function networkReason(error: unknown): string {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current; depth++) {
    const e = current as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof e.code === 'string' && e.code !== 'UND_ERR_SOCKET') return e.code;
    if (typeof e.code === 'string' && typeof e.message === 'string') return e.message;
    current = e.cause;
  }
  return error instanceof Error ? error.message : 'connection failed';
}

/** Seconds to wait from a `Retry-After` header (delta-seconds or HTTP-date), or undefined. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

function backoffDelay(attempt: number, base: number, cap: number): number {
  return Math.random() * Math.min(cap, base * 2 ** attempt);
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function abortReason(signal: AbortSignal): unknown {
  const reason: unknown = signal.reason;
  if (reason instanceof WeftError || reason instanceof Error) return reason;
  return new DOMException('The operation was aborted', 'AbortError');
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortReason(signal);
}

function combineSignals(signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
  const present = signals.filter((s): s is AbortSignal => s !== undefined);
  if (present.length <= 1) return present[0];
  return AbortSignal.any(present);
}

async function discard(response: Response): Promise<void> {
  try {
    await response.body?.cancel();
  } catch {
    // Nothing to free.
  }
}

/** The upstream's own error message, shortened: `message`, `error_description`, `error` or the text. */
async function readExcerpt(response: Response): Promise<string> {
  let text: string;
  try {
    text = (await response.text()).slice(0, 4096);
  } catch {
    return '';
  }
  let message = text;
  try {
    const parsed = JSON.parse(text) as unknown;
    message = pickMessage(parsed) ?? text;
  } catch {
    // Not JSON: use the text.
  }
  message = message.replace(/\s+/g, ' ').trim();
  return message.length > 200 ? `${message.slice(0, 200)}...` : message;
}

function pickMessage(value: unknown): string | undefined {
  if (!value || typeof value !== 'object') return typeof value === 'string' ? value : undefined;
  const record = value as Record<string, unknown>;
  for (const key of ['message', 'error_description', 'error', 'detail', 'title', 'errors']) {
    const inner = record[key];
    if (typeof inner === 'string' && inner) return inner;
    if (Array.isArray(inner) && inner.length > 0) return pickMessage(inner[0]);
    if (inner && typeof inner === 'object') {
      const nested = pickMessage(inner);
      if (nested) return nested;
    }
  }
  return undefined;
}
