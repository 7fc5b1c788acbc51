import { AppCallError } from './app-call-error.js';
import type { Exchange } from './exchange.js';

// How the service reads an exchange: no answer, an error answer (perhaps `{tryLater: true}`),
// or a 2xx JSON answer. One reading for the host and the kit.

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** An error answer that asks the service to try this request again later. */
export function isTryLater(ex: Exchange): boolean {
  return (ex.status ?? 0) >= 400 && isObject(ex.json) && ex.json.tryLater === true;
}

/**
 * The app's own message of an answer, if it has one: its `message`, or else a string `error`,
 * which the service reads too (its docs show /validate refusing an account with `{error}`).
 */
export function appMessageOf(ex: Exchange): string | undefined {
  const body = ex.json;
  if (!isObject(body)) return undefined;
  if (typeof body.message === 'string') return body.message;
  return typeof body.error === 'string' ? body.error : undefined;
}

/**
 * The error the service sees in an exchange, or undefined when it is a usable answer (2xx with a
 * JSON or empty body). The message names the endpoint and repeats the app's own `{message}`,
 * never the request body.
 */
export function errorOf(ex: Exchange): AppCallError | undefined {
  const { method, path } = ex;
  // Final: the same request would bring the same oversized answer again.
  if (ex.tooLarge !== undefined)
    return new AppCallError(`${method} ${path}: the answer is larger than ${ex.tooLarge} bytes`, {
      path,
      status: ex.status ?? 0,
    });
  if (ex.status === undefined) {
    const why = ex.failureCode === 'timeout' ? ex.failure : `no connection (${ex.failureCode ?? 'error'})`;
    return new AppCallError(`${method} ${path}: ${why}`, { path, status: 0, retryable: true });
  }
  if (ex.status < 200 || ex.status >= 300) {
    const own = appMessageOf(ex);
    const message = own !== undefined ? own.slice(0, 500) : `HTTP ${ex.status}`;
    const tryLater = isTryLater(ex);
    const retryAfter = Number(ex.headers?.['retry-after']);
    return new AppCallError(`${method} ${path}: ${message}`, {
      path,
      status: ex.status,
      appMessage: message,
      tryLater,
      retryable: tryLater,
      ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterMs: retryAfter * 1000 } : {}),
    });
  }
  if (!ex.isJson && (ex.text ?? '').length > 0)
    return new AppCallError(`${method} ${path}: the answer is not JSON`, { path, status: ex.status });
  return undefined;
}

/** The parsed answer of an exchange; throws the AppCallError of `errorOf` when there is none. */
export function answerOf(ex: Exchange): unknown {
  const error = errorOf(ex);
  if (error) throw error;
  return ex.json;
}
