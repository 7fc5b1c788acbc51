import { truncate } from './util.js';

/** One request to the app and what came back. */
export interface Exchange {
  method: string;
  path: string;
  /** The raw request body text, if any. */
  requestBody?: string;
  /** Absent when the app did not answer (see `failure`). */
  status?: number;
  contentType?: string;
  location?: string;
  text?: string;
  /** The parsed body when it is JSON. */
  json?: unknown;
  isJson: boolean;
  /** Why there is no answer: a timeout or a connection failure. */
  failure?: string;
  /** Set when nothing listens at the address (connection refused, unknown host): the error code. */
  unreachable?: string;
  /** Response headers the kit reads (lower-case names). */
  headers?: Record<string, string>;
  ms: number;
}

export interface RequestOptions {
  /** Sent verbatim (for malformed-JSON checks) instead of `JSON.stringify(body)`. */
  rawBody?: string;
  timeoutMs: number;
}

/**
 * Header of `GET /` with the app's own handler time limit in ms (apps built with weft's core send
 * it). The kit then waits longer than that, so the app's 504 `tryLater` is seen, not "no answer".
 */
export const TIME_LIMIT_HEADER = 'x-weft-time-limit';

/**
 * Header of a core app's data answers: the rows its handler yielded again, and core dropped, to
 * serve that page (a handler without `resume()` points replays the stream from the start).
 */
export const REPLAYED_ROWS_HEADER = 'x-weft-replayed-rows';
const READ_HEADERS = [TIME_LIMIT_HEADER, REPLAYED_ROWS_HEADER];

/** Connection errors that mean nothing listens at the address, as opposed to an app that misbehaves. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** Sends one request with a hard time limit; never throws. */
export async function send(
  baseUrl: string,
  method: string,
  path: string,
  body: unknown,
  options: RequestOptions,
): Promise<Exchange> {
  const requestBody = options.rawBody ?? (body === undefined ? undefined : JSON.stringify(body));
  const started = performance.now();
  const exchange: Exchange = { method, path, isJson: false, ms: 0 };
  if (requestBody !== undefined) exchange.requestBody = requestBody;
  try {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (requestBody !== undefined) headers['content-type'] = 'application/json';
    const init: RequestInit = {
      method,
      headers,
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs),
    };
    if (requestBody !== undefined) init.body = requestBody;
    const response = await fetch(joinUrl(baseUrl, path), init);
    exchange.status = response.status;
    const contentType = response.headers.get('content-type');
    if (contentType) exchange.contentType = contentType;
    const location = response.headers.get('location');
    if (location) exchange.location = location;
    for (const name of READ_HEADERS) {
      const value = response.headers.get(name);
      if (value) exchange.headers = { ...exchange.headers, [name]: value };
    }
    exchange.text = await response.text();
    if (exchange.text.length > 0) {
      try {
        exchange.json = JSON.parse(exchange.text);
        exchange.isJson = true;
      } catch {
        exchange.isJson = false;
      }
    }
  } catch (error) {
    exchange.failure = describeFailure(error, options.timeoutMs);
    const code = (error as { cause?: { code?: unknown } })?.cause?.code;
    if (typeof code === 'string' && UNREACHABLE_CODES.has(code)) exchange.unreachable = code;
  }
  exchange.ms = performance.now() - started;
  return exchange;
}

function describeFailure(error: unknown, timeoutMs: number): string {
  const err = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (err?.name === 'TimeoutError' || err?.name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  const cause = err?.cause?.code ?? err?.cause?.message;
  if (cause === 'UND_ERR_SOCKET' || cause === 'ECONNRESET')
    return `the app closed the connection without an answer (${cause})`;
  return `request failed: ${err?.message ?? String(error)}${cause ? ` (${cause})` : ''}`;
}

export function joinUrl(base: string, path: string): string {
  return base.replace(/\/+$/, '') + path;
}

/** A short description of what came back, for reasons. */
export function describeAnswer(ex: Exchange): string {
  if (ex.failure) return ex.failure;
  const body = ex.text ?? '';
  const kind = ex.isJson ? '' : body.length === 0 ? ' with an empty body' : ' with a non-JSON body';
  return `HTTP ${ex.status}${kind}`;
}

export function looksLikeHtml(ex: Exchange): boolean {
  return /html/i.test(ex.contentType ?? '') || /^\s*</.test(ex.text ?? '');
}

export const REQUEST_EXCERPT = 300;
export const RESPONSE_EXCERPT = 500;

export const REDACTED = '***';

/** Replaces every secret in `text` (longest first) before it goes into a report. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    out = out.split(secret).join(REDACTED);
    const quoted = JSON.stringify(secret).slice(1, -1);
    if (quoted !== secret) out = out.split(quoted).join(REDACTED);
  }
  return out;
}

export function requestExcerpt(
  ex: Exchange,
  secrets: readonly string[] = [],
): { method: string; path: string; body?: string } {
  const out: { method: string; path: string; body?: string } = { method: ex.method, path: ex.path };
  if (ex.requestBody !== undefined) out.body = truncate(redact(ex.requestBody, secrets), REQUEST_EXCERPT);
  return out;
}

export function responseExcerpt(
  ex: Exchange,
  secrets: readonly string[] = [],
): { status?: number; body?: string } {
  const out: { status?: number; body?: string } = {};
  if (ex.status !== undefined) out.status = ex.status;
  if (ex.failure) out.body = `(${ex.failure})`;
  else if (ex.text !== undefined) out.body = truncate(redact(ex.text, secrets), RESPONSE_EXCERPT);
  return out;
}
