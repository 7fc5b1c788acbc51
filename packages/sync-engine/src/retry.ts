import type { AppCallError } from './app-call-error.js';

// How a page the app could not give now is asked again: the page, not the sync, after a growing
// delay, honouring the app's `Retry-After`.

export interface RetryPolicy {
  /** attempts per page, the first included; default 6 */
  attempts?: number;
  /** delay before the first retry; doubles each time; default 1000 ms */
  baseDelayMs?: number;
  /** default 60 s */
  maxDelayMs?: number;
  /**
   * A request the app gave no answer to (timeout, no connection) is retried like a `tryLater`;
   * default true. A judge that reports the silence itself turns it off.
   */
  retryUnanswered?: boolean;
}

export const DEFAULT_RETRY: Required<Omit<RetryPolicy, 'retryUnanswered'>> = {
  attempts: 6,
  baseDelayMs: 1000,
  maxDelayMs: 60_000,
};

export function retryDelay(
  policy: Required<Omit<RetryPolicy, 'retryUnanswered'>>,
  attempt: number,
  error: AppCallError,
): number {
  const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return error.retryAfterMs !== undefined ? Math.min(policy.maxDelayMs, error.retryAfterMs) : backoff;
}

/** Whether `error` is worth another attempt under `policy`. */
export function shouldRetry(policy: RetryPolicy, error: AppCallError): boolean {
  return error.retryable && (error.tryLater || policy.retryUnanswered !== false);
}

export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        reject(signal.reason);
      },
      { once: true },
    );
  });
