import { AsyncLocalStorage } from 'node:async_hooks';

// The work of one HTTP request to the data API, as the drivers see it: statements sent inside
// `inRequest` run under the request's statement timeout (Postgres) and are cancelled when the
// request's signal aborts (its client went away, or its time ran out). Work outside a request
// (start-up, background workers, an in-process app host) runs without either.

export interface RequestScope {
  /** aborts when the request's client hangs up or its time budget is spent */
  readonly signal: AbortSignal;
}

const storage = new AsyncLocalStorage<RequestScope>();

export function inRequest<T>(scope: RequestScope, fn: () => Promise<T>): Promise<T> {
  return storage.run(scope, fn);
}

/** The request the current statement belongs to, if any. */
export function currentRequest(): RequestScope | undefined {
  return storage.getStore();
}

/** Runs `fn` as work of no request: what it starts (a worker woken by a request) outlives the request. */
export function outsideRequest<T>(fn: () => T): T {
  return storage.exit(fn);
}
