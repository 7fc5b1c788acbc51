import { limitedText } from './body-text.js';
import { type HttpRequest, httpRequest } from './http-transport.js';
import { MAX_ANSWER_BYTES } from './limits.js';

/**
 * One request to an app and what came back, as it went over the wire. The service (and so the
 * workspace's host) reads only the parsed answer; the conformance kit judges the whole exchange:
 * status, headers, the raw body, how long it took.
 */
export interface Exchange {
  method: string;
  path: string;
  /** The raw request body text, if any (it holds the account: never log it). */
  requestBody?: string;
  /** Absent when the app did not answer (see `failure`). */
  status?: number;
  contentType?: string;
  location?: string;
  /** The answer's body as text (absent for a JSON answer when the caller asked for JSON only). */
  text?: string;
  /** The parsed body when it is JSON. */
  json?: unknown;
  isJson: boolean;
  /** Why there is no answer: a timeout or a connection failure, in words. */
  failure?: string;
  /** What failed, for code: `timeout`, or the connection error's code (`ECONNRESET`, ...). */
  failureCode?: string;
  /** Set when nothing listens at the address (connection refused, unknown host): the error code. */
  unreachable?: string;
  /** Set when the answer's body was larger than the call's limit (this limit, in bytes): it was not read. */
  tooLarge?: number;
  /** Response headers, lower-case names. */
  headers?: Record<string, string>;
  /** From sending to the end of the body, in ms. */
  ms: number;
}

/** What the client sends: a protocol request, before it goes out. */
export interface ExchangeRequest {
  method: string;
  path: string;
  /** Serialized with `JSON.stringify` unless `rawBody` is set. */
  body?: unknown;
}

export interface SendOptions {
  /** Sent verbatim instead of `JSON.stringify(body)` (for probes with malformed JSON). */
  rawBody?: string;
  /** This request's time limit; default the client's. */
  timeoutMs?: number;
  /** Largest answer body read, in bytes; default the client's (see limits.ts). */
  maxBytes?: number;
  signal?: AbortSignal;
}

export interface TransportOptions {
  timeoutMs: number;
  /** `manual` shows a redirect as the 3xx answer it is. */
  redirect: 'follow' | 'manual';
  /** A kept-alive connection the app closed meanwhile is tried once more on a new connection. */
  reconnect: boolean;
  /**
   * Keep the raw text of an answer that parsed as JSON (default true). A judge of the exchange
   * (the conformance kit) needs it; the host reads only the JSON and drops the text at once, a
   * second copy of every data page it would otherwise hold.
   */
  keepJsonText?: boolean;
  /** Largest answer body read, in bytes: past it the body is dropped and `tooLarge` set. */
  maxBytes?: number;
  signal?: AbortSignal;
}

/** Connection errors that mean nothing listens at the address, as opposed to an app that misbehaves. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
/** The connection was closed under the request. */
const RESET_CODES = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

/** The request body text as it is sent. */
export function requestText(body: unknown, rawBody?: string): string | undefined {
  return rawBody ?? (body === undefined ? undefined : JSON.stringify(body));
}

/** Sends one request with a hard time limit and records the exchange; never throws. */
export async function sendExchange(
  baseUrl: string,
  request: ExchangeRequest,
  rawBody: string | undefined,
  options: TransportOptions,
): Promise<Exchange> {
  const { method, path } = request;
  const requestBody = requestText(request.body, rawBody);
  const started = performance.now();
  const exchange: Exchange = { method, path, isJson: false, ms: 0 };
  if (requestBody !== undefined) exchange.requestBody = requestBody;
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (requestBody !== undefined) headers['content-type'] = 'application/json';
  const init: HttpRequest = {
    method,
    headers,
    redirect: options.redirect,
    signal: options.signal ? AbortSignal.any([options.signal, timeout]) : timeout,
  };
  if (requestBody !== undefined) init.body = requestBody;
  const url = baseUrl.replace(/\/+$/, '') + path;
  try {
    const answer = await httpRequest(url, init).catch((error: unknown) => {
      if (options.reconnect && RESET_CODES.has(causeCode(error) ?? '')) return httpRequest(url, init);
      throw error;
    });
    exchange.status = answer.status;
    const contentType = answer.headers['content-type'];
    if (contentType) exchange.contentType = contentType;
    const location = answer.headers.location;
    if (location) exchange.location = location;
    exchange.headers = answer.headers;
    const text = await limitedText(
      answer.body,
      answer.headers['content-length'],
      options.maxBytes ?? MAX_ANSWER_BYTES,
      async () => {
        answer.body.destroy();
      },
    );
    if (text === undefined) {
      exchange.tooLarge = options.maxBytes ?? MAX_ANSWER_BYTES;
      exchange.ms = performance.now() - started;
      return exchange;
    }
    exchange.text = text;
    if (text.length > 0) {
      try {
        exchange.json = JSON.parse(text);
        exchange.isJson = true;
        if (options.keepJsonText === false) delete exchange.text;
      } catch {
        exchange.isJson = false;
      }
    }
  } catch (error) {
    const err = error as { name?: string };
    const timedOut = err?.name === 'TimeoutError' || (err?.name === 'AbortError' && timeout.aborted);
    const code = causeCode(error);
    exchange.failureCode = timedOut ? 'timeout' : (code ?? err?.name ?? 'error');
    exchange.failure = describeFailure(error, options.timeoutMs, timedOut);
    if (code !== undefined && UNREACHABLE_CODES.has(code)) exchange.unreachable = code;
  }
  exchange.ms = performance.now() - started;
  return exchange;
}

/**
 * The body of a fetch Response as text when it holds at most `maxBytes`; undefined (the rest left
 * unread, the connection closed) when it holds more (see limitedText).
 */
export async function readAnswerText(response: Response, maxBytes: number): Promise<string | undefined> {
  const body = response.body;
  if (!body) return '';
  return limitedText(
    body as unknown as AsyncIterable<Uint8Array>,
    response.headers.get('content-length'),
    maxBytes,
    () => body.cancel().catch(() => {}),
  );
}

/** The connection error's code: a transport error's cause, or (a body cut off) the error's own. */
function causeCode(error: unknown): string | undefined {
  const e = error as { code?: unknown; cause?: { code?: unknown } };
  const code = e?.cause?.code ?? e?.code;
  return typeof code === 'string' ? code : undefined;
}

function describeFailure(error: unknown, timeoutMs: number, timedOut: boolean): string {
  const err = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (timedOut || err?.name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  const cause = err?.cause?.code ?? err?.cause?.message;
  if (cause !== undefined && RESET_CODES.has(cause))
    return `the app closed the connection without an answer (${cause})`;
  return `request failed: ${err?.message ?? String(error)}${cause ? ` (${cause})` : ''}`;
}
