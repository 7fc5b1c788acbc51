import { z } from 'zod';
import type { OutboundPolicy } from '../outbound/index.js';
import { readAll, scriptFetch, type ScriptFetchInit } from './script-fetch.js';
import type { ServiceImpl } from './script-runner.js';

// `context.getService('http')` of a script, as the service's own is used by scripts written for
// it: getAsync, postAsync, putAsync and deleteAsync(url, options) answer the body as text (at most
// MAX_HTTP_BYTES of it): scripts `JSON.parse` the answer. An answer with a status outside 2xx
// rejects with an Error whose `innerError` holds `{statusCode, message, body}`, which scripts
// read in their `catch`. A `body` that is not a string goes as JSON (with that content type
// unless the headers name one).

export const MAX_HTTP_BYTES = 5 * 1024 * 1024;
const HTTP_TIMEOUT_MS = 30_000;

const Url = z.string({ error: 'url must be a non-empty string' }).min(1, 'url must be a non-empty string');
const Options = z
  .object({
    headers: z.record(z.string(), z.coerce.string(), { error: 'headers must be an object' }).optional(),
    body: z.unknown().optional(),
  })
  .nullish();

const firstIssue = (error: z.ZodError) => error.issues[0]?.message ?? 'Invalid arguments';

/** An answer outside 2xx, as scripts written for the service catch it. */
export class ScriptHttpError extends Error {
  constructor(
    message: string,
    readonly innerError: { statusCode: number; message: string; body: string },
  ) {
    super(message);
  }
}

/** The request's body and headers: a string as it is, anything else as JSON. */
function bodyOf(body: unknown, headers: Record<string, string>): Pick<ScriptFetchInit, 'body' | 'headers'> {
  if (body === undefined || body === null) return { headers };
  if (typeof body === 'string') return { headers, body };
  const typed = Object.keys(headers).some((h) => h.toLowerCase() === 'content-type');
  return {
    headers: typed ? headers : { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  };
}

export function scriptHttp(outbound: OutboundPolicy): ServiceImpl {
  const request = async (method: ScriptFetchInit['method'], url: unknown, options: unknown) => {
    const u = Url.safeParse(url);
    if (!u.success) throw new Error(firstIssue(u.error));
    const o = Options.safeParse(options);
    if (!o.success) throw new Error(firstIssue(o.error));
    const sent = bodyOf(method === 'GET' ? undefined : o.data?.body, o.data?.headers ?? {});
    const res = await scriptFetch(
      outbound,
      u.data,
      { method, ...sent },
      {
        maxBytes: MAX_HTTP_BYTES,
        timeoutMs: HTTP_TIMEOUT_MS,
        tooLarge: `The answer is larger than ${MAX_HTTP_BYTES / 1024 / 1024} MB; the rest was not read`,
      },
    );
    const body = (await readAll(res.body)).toString('utf8');
    if (res.status < 200 || res.status >= 300) {
      // The host only: a URL's path and query may hold a secret.
      const message = `${method} to ${new URL(u.data).host} answered HTTP ${res.status}`;
      throw new ScriptHttpError(message, { statusCode: res.status, message, body });
    }
    return body;
  };
  return {
    getAsync: (url, options) => request('GET', url, options),
    postAsync: (url, options) => request('POST', url, options),
    putAsync: (url, options) => request('PUT', url, options),
    deleteAsync: (url, options) => request('DELETE', url, options),
  };
}
