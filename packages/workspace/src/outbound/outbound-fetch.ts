import type { fetch as undiciFetch } from 'undici';
import { OutboundTooLargeError, OutboundUnreachableError, outboundCause } from './outbound-errors.js';
import type { OutboundPolicy } from './outbound-policy.js';

// The one fetch for calls the workspace makes on a user's behalf. Every connection goes through
// the policy's agent (its DNS answers are checked at connect time); redirects are followed here,
// a bounded number of times, each new address checked again; the answer's body is a stream that
// fails once more than `maxBytes` have come, so no answer is ever held whole or unbounded.

export interface OutboundRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** redirects followed (default 5); 0 gives a redirect answer back as it is */
  maxRedirects?: number;
  /** largest body read (default 10 MiB): past it reading the body fails with OutboundTooLargeError */
  maxBytes?: number;
  /** time limit of the whole call, reading the body included (default 30 s) */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const NULL_BODY = new Set([101, 204, 205, 304]);
/** dropped when a redirect leaves the origin they were given for */
const CREDENTIALS = ['authorization', 'cookie', 'proxy-authorization'];

/**
 * Fetches `url` under `policy`. Rejects with an OutboundError: OutboundRefusedError for an address
 * the policy refuses (at any hop), OutboundUnreachableError for every other failure to get an
 * answer (one message, whatever the cause: no port oracle). The answer is a standard Response.
 */
export async function outboundFetch(
  policy: OutboundPolicy,
  url: string | URL,
  request: OutboundRequest = {},
): Promise<Response> {
  const maxRedirects = request.maxRedirects ?? 5;
  const maxBytes = request.maxBytes ?? DEFAULT_MAX_BYTES;
  const timeout = AbortSignal.timeout(request.timeoutMs ?? 30_000);
  const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
  let current: URL;
  try {
    current = new URL(url);
  } catch {
    throw new OutboundUnreachableError('The address is not a URL');
  }
  let method = (request.method ?? 'GET').toUpperCase();
  let body = request.body;
  const headers = { ...(request.headers ?? {}) };
  for (let hop = 0; ; hop++) {
    if (current.protocol !== 'http:' && current.protocol !== 'https:')
      throw new OutboundUnreachableError('Only http and https addresses are fetched');
    policy.checkLiteral(current);
    let answer: Awaited<ReturnType<typeof undiciFetch>>;
    try {
      const [{ fetch }, dispatcher] = await Promise.all([import('undici'), policy.agent()]);
      answer = await fetch(current, {
        method,
        headers,
        ...(body !== undefined ? { body } : {}),
        redirect: 'manual',
        dispatcher,
        signal,
      });
    } catch (error) {
      throw outboundCause(error) ?? new OutboundUnreachableError();
    }
    const location = answer.headers.get('location');
    if (maxRedirects > 0 && REDIRECTS.has(answer.status) && location) {
      await answer.body?.cancel().catch(() => {});
      if (hop >= maxRedirects) throw new OutboundUnreachableError(`More than ${maxRedirects} redirects`);
      let next: URL;
      try {
        next = new URL(location, current);
      } catch {
        throw new OutboundUnreachableError('A redirect to something that is not a URL');
      }
      if (answer.status === 303 || ((answer.status === 301 || answer.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
        delete headers['content-type'];
      }
      if (next.origin !== current.origin) {
        for (const name of Object.keys(headers))
          if (CREDENTIALS.includes(name.toLowerCase())) delete headers[name];
      }
      current = next;
      continue;
    }
    return limitedResponse(answer, maxBytes);
  }
}

function limitedResponse(answer: Awaited<ReturnType<typeof undiciFetch>>, maxBytes: number): Response {
  const headers = new Headers();
  answer.headers.forEach((value, name) => {
    headers.append(name, value);
  });
  const declared = Number(answer.headers.get('content-length') ?? NaN);
  let body: ReadableStream<Uint8Array> | null = null;
  if (!NULL_BODY.has(answer.status) && answer.body) {
    const source = answer.body as unknown as ReadableStream<Uint8Array>;
    if (declared > maxBytes) {
      source.cancel().catch(() => {});
      body = new ReadableStream({ start: (c) => c.error(new OutboundTooLargeError(maxBytes)) });
    } else {
      let seen = 0;
      body = source.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            seen += chunk.byteLength;
            if (seen > maxBytes) controller.error(new OutboundTooLargeError(maxBytes));
            else controller.enqueue(chunk);
          },
        }),
      );
    }
  }
  const response = new Response(body, { status: answer.status, statusText: answer.statusText, headers });
  Object.defineProperty(response, 'url', { value: answer.url });
  return response;
}

/** Reads a Response's body under the limit its stream enforces, turning read failures into OutboundErrors. */
export async function readText(response: Response): Promise<string> {
  try {
    return await response.text();
  } catch (error) {
    throw outboundCause(error) ?? new OutboundUnreachableError();
  }
}
