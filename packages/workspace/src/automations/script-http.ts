import { z } from 'zod';
import type { OutboundPolicy } from '../outbound/index.js';
import { readAll, scriptFetch } from './script-fetch.js';
import type { ServiceImpl } from './script-runner.js';

// `context.getService('http')` of a script: getAsync/postAsync(url, options) answering
// {status, headers, body} with the body as text, at most MAX_HTTP_BYTES of it.

export const MAX_HTTP_BYTES = 5 * 1024 * 1024;
const HTTP_TIMEOUT_MS = 30_000;

const Url = z.string({ error: 'url must be a non-empty string' }).min(1, 'url must be a non-empty string');
const Options = z
  .object({
    headers: z.record(z.string(), z.coerce.string(), { error: 'headers must be an object' }).optional(),
    body: z.coerce.string().optional(),
  })
  .nullish();

const firstIssue = (error: z.ZodError) => error.issues[0]?.message ?? 'Invalid arguments';

export function scriptHttp(outbound: OutboundPolicy): ServiceImpl {
  const request = async (method: 'GET' | 'POST', url: unknown, options: unknown) => {
    const u = Url.safeParse(url);
    if (!u.success) throw new Error(firstIssue(u.error));
    const o = Options.safeParse(options);
    if (!o.success) throw new Error(firstIssue(o.error));
    const res = await scriptFetch(
      outbound,
      u.data,
      {
        method,
        headers: o.data?.headers ?? {},
        ...(method === 'POST' && o.data?.body !== undefined ? { body: o.data.body } : {}),
      },
      {
        maxBytes: MAX_HTTP_BYTES,
        timeoutMs: HTTP_TIMEOUT_MS,
        tooLarge: `The answer is larger than ${MAX_HTTP_BYTES / 1024 / 1024} MB; the rest was not read`,
      },
    );
    const body = await readAll(res.body);
    return { status: res.status, headers: Object.fromEntries(res.headers), body: body.toString('utf8') };
  };
  return {
    getAsync: (url, options) => request('GET', url, options),
    postAsync: (url, options) => request('POST', url, options),
  };
}
