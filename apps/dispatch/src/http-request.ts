// The `http-request` action: one HTTP request built from an automation's arguments, with the
// input checked first (method, URL, header lines, body) and the address guard on the connection.
// Sent once: a request may have effects, so it is never repeated in-process; temporary failures
// answer tryLater and the service decides whether to run the action again.
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { ActionError, type Logger, TryLaterError, parseRetryAfter, redact } from '@weft/core';
import { InternalAddressError, guardedLookup, isInternalAddress } from './address-guard.js';

export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type Method = (typeof METHODS)[number];

/** Largest request body, in bytes. */
export const MAX_BODY_BYTES = 1024 * 1024;
export const MAX_HEADERS = 50;
/** Headers the transport owns, or that would let a request impersonate another host. */
const FORBIDDEN_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'proxy-authorization',
  'proxy-connection',
]);
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export interface HttpRequestArgs {
  method?: string | undefined;
  url: string;
  headers?: string | undefined;
  body?: string | undefined;
}

export interface PreparedRequest {
  method: Method;
  url: URL;
  headers: Record<string, string>;
  body: string | undefined;
}

/** Checks the arguments; throws `ActionError` (400) naming the problem, before any connection. */
export function prepareRequest(args: HttpRequestArgs, allowInternal: boolean): PreparedRequest {
  const method = (args.method?.trim() || 'GET').toUpperCase();
  if (!(METHODS as readonly string[]).includes(method)) {
    throw new ActionError(`Method "${args.method}" is not one of ${METHODS.join(', ')}`);
  }
  let url: URL;
  try {
    url = new URL(args.url.trim());
  } catch {
    throw new ActionError('The URL is not a valid absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ActionError(`The URL must use http or https, not ${url.protocol.replace(':', '')}`);
  }
  if (url.username || url.password) {
    throw new ActionError('The URL must not contain a user name or password; send an Authorization header');
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // Literal addresses skip DNS, so the lookup hook never sees them: check them here.
  if (!allowInternal && isIP(host) !== 0 && isInternalAddress(host)) {
    throw new ActionError('The URL points to an internal address; requests to internal networks are refused');
  }

  const headers: Record<string, string> = { 'user-agent': 'weft-dispatch/1.0' };
  const lines = (args.headers ?? '').split(/\r?\n/).filter((line) => line.trim() !== '');
  if (lines.length > MAX_HEADERS) throw new ActionError(`At most ${MAX_HEADERS} headers`);
  for (const [index, line] of lines.entries()) {
    const colon = line.indexOf(':');
    const name = (colon > 0 ? line.slice(0, colon) : line).trim();
    // A malformed line is often a token pasted without its header name: it is named by its
    // number only, never quoted, in the answer and so in any log of it.
    if (colon <= 0 || !TOKEN.test(name)) {
      throw new ActionError(`Header line ${index + 1} is not "Name: value"`);
    }
    const key = name.toLowerCase();
    if (FORBIDDEN_HEADERS.has(key))
      throw new ActionError(`Header "${name}" is set by the app and cannot be sent`);
    const value = line.slice(colon + 1).trim();
    // `\r` and `\n` were split away; other control characters would corrupt the request.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to find them
    if (/[\x00-\x08\x0a-\x1f\x7f]/.test(value))
      throw new ActionError(`Header "${name}" has a control character`);
    headers[key] = key in headers && key !== 'user-agent' ? `${headers[key]}, ${value}` : value;
  }

  const body = args.body === undefined || args.body === '' ? undefined : args.body;
  if (body !== undefined) {
    if (method === 'GET' || method === 'HEAD')
      throw new ActionError(`A ${method} request cannot have a body`);
    if (Buffer.byteLength(body) > MAX_BODY_BYTES) {
      throw new ActionError(`The body is larger than ${MAX_BODY_BYTES / 1024} KB`);
    }
    headers['content-type'] ??= looksLikeJson(body) ? 'application/json' : 'text/plain; charset=utf-8';
  }
  return { method: method as Method, url, headers, body };
}

export interface SendOptions {
  allowInternal: boolean;
  timeoutMs: number;
  signal: AbortSignal;
  log: Logger;
}

/** Sends the request; resolves on a 2xx, else throws `ActionError` or `TryLaterError`. */
export async function sendRequest(
  request: PreparedRequest,
  options: SendOptions,
): Promise<{ status: number }> {
  // Messages name the origin only: paths and queries of webhook URLs are often their secret.
  const target = `${request.method} ${request.url.origin}`;
  const signal = AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs)]);
  let answer: { status: number; headers: http.IncomingHttpHeaders; excerpt: string };
  try {
    answer = await exchange(request, options.allowInternal, signal);
  } catch (error) {
    throw transportError(error, target, options);
  }
  const { status } = answer;
  options.log.info({ method: request.method, origin: request.url.origin, status }, 'http-request answered');
  if (status >= 200 && status < 300) return { status };
  // The answer may echo what it was sent (an API key in a header): keep the header values out.
  const secrets = Object.entries(request.headers)
    .filter(([name, value]) => name !== 'user-agent' && name !== 'content-type' && value.length >= 6)
    .map(([, value]) => value);
  const text = redact(answer.excerpt, secrets);
  const detail = text ? `: ${text}` : '';
  if (status === 429 || status === 503) {
    const retryAfterSeconds = parseRetryAfter(headerValue(answer.headers['retry-after']) ?? null);
    throw new TryLaterError(`${target} answered ${status}${detail}`, {
      status,
      ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    });
  }
  if (status >= 500) throw new TryLaterError(`${target} answered ${status}${detail}`);
  if (status >= 300 && status < 400) {
    throw new ActionError(`${target} answered ${status}; redirects are not followed, use the final URL`);
  }
  throw new ActionError(`${target} answered ${status}${detail}`);
}

function exchange(
  request: PreparedRequest,
  allowInternal: boolean,
  signal: AbortSignal,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; excerpt: string }> {
  return new Promise((resolve, reject) => {
    const client = request.url.protocol === 'https:' ? https : http;
    const req = client.request(
      request.url,
      {
        method: request.method,
        headers: request.headers,
        lookup: guardedLookup(allowInternal) as never,
        // A fresh connection per request, so every request goes through the lookup guard.
        agent: false,
        signal,
      },
      (res) => {
        // Keep a short excerpt of the answer for the failure message; drop the rest unread.
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          if (size < 2048) chunks.push(chunk);
          size += chunk.length;
          if (size >= 2048) res.destroy();
        });
        const done = () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            excerpt: excerpt(Buffer.concat(chunks)),
          });
        res.on('end', done);
        res.on('close', done);
        res.on('error', done);
      },
    );
    req.on('error', reject);
    req.end(request.body);
  });
}

function transportError(error: unknown, target: string, options: SendOptions): Error {
  if (
    error instanceof InternalAddressError ||
    (error as { cause?: unknown })?.cause instanceof InternalAddressError
  ) {
    return new ActionError(
      `${target}: the host resolves to an internal address; requests to internal networks are refused`,
    );
  }
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code === 'ENOTFOUND') return new ActionError(`${target}: no such host`);
  if (options.signal.aborted)
    return options.signal.reason instanceof Error ? options.signal.reason : new Error('aborted');
  if ((error as Error)?.name === 'AbortError' || (error as Error)?.name === 'TimeoutError') {
    return new TryLaterError(`${target} did not answer within ${options.timeoutMs / 1000} s`, {
      status: 504,
    });
  }
  return new TryLaterError(`${target} could not be reached (${code ?? 'network error'})`);
}

function excerpt(buffer: Buffer): string {
  return buffer.toString('utf8').replace(/\s+/g, ' ').trim().slice(0, 200);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function looksLikeJson(body: string): boolean {
  const first = body.trimStart()[0];
  if (first !== '{' && first !== '[') return false;
  try {
    JSON.parse(body);
    return true;
  } catch {
    return false;
  }
}
