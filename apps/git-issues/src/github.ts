// Calls to the GitHub REST API through core's upstream client (retries, tryLater, redaction,
// cassettes), plus what core does not know about GitHub: Link-header paging and the
// X-RateLimit-* headers.
import {
  InvalidAccountError,
  TryLaterError,
  bearer,
  createUpstream,
  type Logger,
  type Upstream,
} from '@weft/core';
import { linkOf } from './link-header.js';

export const DEFAULT_API_URL = 'https://api.github.com';
export const DEFAULT_WEB_URL = 'https://github.com';

export interface GitHub {
  /** One page of a list: its items and the `next` link, if any. */
  page<T>(
    pathOrUrl: string,
    query?: Record<string, string | number | undefined>,
  ): Promise<{ items: T[]; next?: string }>;
  json<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T>;
}

/**
 * A client for one request of the app. When GitHub says the hourly budget is spent
 * (`X-RateLimit-Remaining: 0`), the next call in this request is refused with a tryLater error
 * whose Retry-After is `X-RateLimit-Reset`: the service retries the page after the reset instead
 * of the app burning a request on a certain 403.
 */
export function github(options: {
  apiUrl: string;
  token: string;
  signal: AbortSignal;
  log?: Logger;
}): GitHub {
  const api: Upstream = createUpstream({
    baseUrl: options.apiUrl,
    auth: bearer(options.token),
    headers: { accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' },
    signal: options.signal,
    ...(options.log ? { log: options.log } : {}),
  });
  let resetAt: number | undefined;

  const guard = () => {
    if (resetAt === undefined) return;
    const seconds = Math.max(1, Math.ceil(resetAt - Date.now() / 1000));
    throw new TryLaterError(`GitHub's rate limit is used up; it resets in ${seconds} seconds`, {
      status: 429,
      retryAfterSeconds: seconds,
    });
  };
  const observe = (response: Response) => {
    if (response.headers.get('x-ratelimit-remaining') === '0') {
      const reset = Number(response.headers.get('x-ratelimit-reset'));
      resetAt = Number.isFinite(reset) && reset > 0 ? reset : Date.now() / 1000 + 60;
    }
  };
  const call = async (
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    init: Parameters<Upstream['request']>[2],
  ) => {
    guard();
    try {
      const response = await api.request(method, path, init);
      observe(response);
      return response;
    } catch (error) {
      // GitHub answers a spent budget with 403 (core reads a 403 as refused credentials).
      if (error instanceof InvalidAccountError && /rate limit/i.test(error.message)) {
        throw new TryLaterError("GitHub's rate limit is used up", { status: 429, retryAfterSeconds: 60 });
      }
      throw error;
    }
  };

  return {
    async page<T>(pathOrUrl: string, query?: Record<string, string | number | undefined>) {
      const response = await call('GET', pathOrUrl, query ? { query } : {});
      const next = linkOf(response.headers.get('link'), 'next');
      const items = (await response.json()) as T[];
      return next ? { items, next } : { items };
    },
    async json<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown) {
      const response = await call(method, path, body === undefined ? {} : { json: body });
      const text = await response.text();
      return (text ? JSON.parse(text) : undefined) as T;
    },
  };
}
