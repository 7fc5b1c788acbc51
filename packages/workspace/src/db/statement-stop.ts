import type pg from 'pg';
import { sqlState } from './driver.js';
import { WorkspaceError } from '../errors.js';
import { currentRequest, type RequestScope } from './request-scope.js';

// Stopping a request's statements: before each statement (both engines) and, on Postgres, during
// one, by cancelling it on its server process. A connection whose statement was cancelled is
// closed rather than pooled again, so a cancel that arrives late can never hit the next user's
// statement on that connection.

const cancelled = new WeakSet<pg.PoolClient>();

/** Throws the request's reason when its signal has aborted: no more statements for it. */
export function checkRequest(): void {
  const scope = currentRequest();
  if (scope?.signal.aborted) throw scope.signal.reason;
}

/** Runs `fn` on `client`, cancelling its statement if the request's signal aborts meanwhile. */
export async function whileRunning<T>(
  scope: RequestScope | undefined,
  client: pg.PoolClient,
  cancel: (pid: number) => void,
  fn: () => Promise<T>,
): Promise<T> {
  if (!scope) return fn();
  if (scope.signal.aborted) throw scope.signal.reason;
  const onAbort = () => {
    const pid = (client as unknown as { processID?: number }).processID;
    cancelled.add(client);
    if (pid !== undefined) cancel(pid);
  };
  scope.signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await fn();
  } finally {
    scope.signal.removeEventListener('abort', onAbort);
  }
}

/** Gives `client` back to its pool, or closes it when a cancel was sent to it. */
export function release(client: pg.PoolClient): void {
  client.release(cancelled.has(client));
}

/** The error to report for a statement that failed: the request's own reason when it was stopped. */
export function stopped(error: unknown, scope: RequestScope | undefined, timeoutMs: number): unknown {
  if (!scope) return error;
  if (scope.signal.aborted) return scope.signal.reason;
  if (sqlState(error) === '57014') return statementTimeout(timeoutMs);
  return error;
}

export const statementTimeout = (ms: number) =>
  new WorkspaceError(
    400,
    'over-budget',
    `A statement ran longer than the statement timeout (${ms} ms): ask for less (fewer filters, a smaller q/limit)`,
  );
