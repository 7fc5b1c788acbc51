import http, { type IncomingMessage } from 'node:http';

// One HTTP request to an app over node:http, on a kept-alive connection per origin. The engine
// reads thousands of rows per data page: node:http hands the body over as Buffers, where fetch
// (undici) passes it through web streams; for a 1,000-row page that cost about 1.5 ms of CPU more
// (measured side by side against a local server). Redirects are followed as fetch follows them.

/** What came back: the status, the headers with lower-case names, and the body still to read. */
export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  body: IncomingMessage;
}

export interface HttpRequest {
  method: string;
  headers: Record<string, string>;
  body?: string;
  /** `manual` answers a redirect as the 3xx it is */
  redirect: 'follow' | 'manual';
  signal: AbortSignal;
}

/** An error of the connection, with the code fetch would carry as its cause (ECONNREFUSED, ...). */
export class HttpTransportError extends Error {
  override readonly cause: { code?: string };
  constructor(message: string, cause: { code?: string } = {}) {
    super(message);
    this.name = 'HttpTransportError';
    this.cause = cause;
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** fetch's own limit */
const MAX_REDIRECTS = 20;

type Transport = { request: typeof http.request; agent: http.Agent };
const plain: Transport = { request: http.request, agent: new http.Agent({ keepAlive: true }) };
/** node:https (and TLS with it) is loaded for the first https app only: a process start never waits for it. */
let secure: Promise<Transport> | undefined;

function transport(protocol: string): Promise<Transport> | Transport | undefined {
  if (protocol === 'http:') return plain;
  if (protocol !== 'https:') return undefined;
  secure ??= import('node:https').then((https) => ({
    request: https.request,
    agent: new https.Agent({ keepAlive: true }),
  }));
  return secure;
}

/** Sends the request (and, with `follow`, its redirects); rejects on a connection error or abort. */
export async function httpRequest(url: string, request: HttpRequest): Promise<HttpAnswer> {
  let target = new URL(url);
  let { method, body } = request;
  const headers = { ...request.headers };
  for (let hop = 0; ; hop++) {
    const answer = await once(target, method, headers, body, request.signal);
    const location = answer.headers.location;
    if (request.redirect === 'manual' || !REDIRECTS.has(answer.status) || location === undefined)
      return answer;
    answer.body.resume();
    if (hop >= MAX_REDIRECTS) throw new HttpTransportError('redirect count exceeded');
    target = new URL(location, target);
    // As fetch does: 303 turns into a GET, and so do 301 and 302 of a POST; the body goes with it.
    if (
      answer.status === 303
        ? method !== 'HEAD'
        : (answer.status === 301 || answer.status === 302) && method === 'POST'
    ) {
      method = 'GET';
      body = undefined;
      delete headers['content-type'];
    }
  }
}

async function once(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  signal: AbortSignal,
): Promise<HttpAnswer> {
  const via = await transport(url.protocol);
  if (!via) return Promise.reject(new HttpTransportError(`unsupported protocol ${url.protocol}`));
  return new Promise((resolve, reject) => {
    const sent = { ...headers };
    if (body !== undefined) sent['content-length'] = String(Buffer.byteLength(body));
    const req = via.request(url, { method, headers: sent, agent: via.agent, signal });
    req.on('error', (error: NodeJS.ErrnoException) => reject(transportError(error, signal)));
    req.on('response', (res) => {
      // Aborted while the body is read: the body fails with the abort, as fetch's does.
      const abort = () => res.destroy(abortError(signal));
      signal.addEventListener('abort', abort, { once: true });
      res.once('close', () => signal.removeEventListener('abort', abort));
      const flat: Record<string, string> = {};
      for (const [name, value] of Object.entries(res.headers))
        if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
      resolve({ status: res.statusCode ?? 0, headers: flat, body: res });
    });
    req.end(body);
  });
}

function abortError(signal: AbortSignal): Error {
  const reason = signal.reason as { name?: string } | undefined;
  if (reason instanceof Error && (reason.name === 'TimeoutError' || reason.name === 'AbortError'))
    return reason;
  const error = new Error('This operation was aborted');
  error.name = 'AbortError';
  return error;
}

function transportError(error: NodeJS.ErrnoException, signal: AbortSignal): Error {
  if (signal.aborted || error.name === 'AbortError') return abortError(signal);
  return new HttpTransportError(error.message, { code: error.code });
}
