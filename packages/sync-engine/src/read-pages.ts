import type { AppClient } from './app-client.js';
import { AppCallError } from './app-call-error.js';
import type { DataOutcome } from './data-page.js';
import type { DoneEvent, PageEvent, RetryEvent } from './events.js';
import type { Exchange } from './exchange.js';
import type { DataRequestBody } from './requests.js';
import { DEFAULT_RETRY, type RetryPolicy, retryDelay, shouldRetry, sleep } from './retry.js';

// The paging loop of one type, as the service runs it: the first request has `pagination: null`,
// each next one the previous page's `nextPageConfig`; a `{tryLater: true}` answer (or no answer)
// retries that same page after a growing delay, not the whole sync. Every event carries the raw
// exchange, and a failure ends the stream with an event rather than a throw, so that a judge can
// look at what the app answered. Pages are yielded one at a time and the next is only fetched
// once the consumer asks for it, so nothing accumulates here; a consumer that stops iterating
// stops the paging.

type Json = Record<string, unknown>;

export interface ReadPagesInput {
  type: string;
  /** every type of the sync (sent as `types` for context) */
  types: string[];
  filter: Json;
  account: Json;
  lastSynchronizedAt: string | null;
  operationId?: string;
  /** the sync's schema, sent with every request (see DataRequestBody) */
  schema?: Json;
  retry?: RetryPolicy;
  /** resume a sync from a page already known: its number and the pagination that asks for it */
  resumeFrom?: { page: number; pagination: Json | null };
  signal?: AbortSignal;
}

/** A page event with the exchange that brought it. */
export interface ExchangePageEvent extends PageEvent {
  /** the page's own `synchronizationType` (`synchronizationType` is the first page's, which holds for the type) */
  pageSynchronizationType: 'full' | 'delta';
  exchange: Exchange;
}

export interface ExchangeRetryEvent extends RetryEvent {
  /** the answer that asked to try later (or the request that got none) */
  exchange: Exchange;
}

/** The page could not be read: the app's error, `tryLater` after the last attempt, or a paging loop. Ends the stream. */
export interface FailedEvent {
  kind: 'failed';
  type: string;
  page: number;
  /** what was sent as `pagination` for that page */
  pagination: Json | null;
  error: AppCallError;
  /** the last exchange (the one that failed, or the page that asked again for an earlier page) */
  exchange: Exchange;
}

export type ExchangeDoneEvent = DoneEvent;

export type PagesEvent = ExchangePageEvent | ExchangeRetryEvent | FailedEvent | ExchangeDoneEvent;

/** Request one page, retrying `tryLater` (and unanswered requests) per policy; yields a retry event before each wait. */
async function* attempts(
  client: AppClient,
  body: DataRequestBody,
  page: number,
  policy: RetryPolicy,
  signal: AbortSignal | undefined,
): AsyncGenerator<Omit<ExchangeRetryEvent, 'type'>, DataOutcome> {
  const limits = { ...DEFAULT_RETRY, ...policy };
  for (let attempt = 1; ; attempt++) {
    const outcome = await client.dataPage(body, signal ? { signal } : {});
    if (outcome.kind === 'page') return outcome;
    const { error } = outcome;
    if (!shouldRetry(policy, error) || attempt >= limits.attempts) return outcome;
    const delayMs = retryDelay(limits, attempt, error);
    yield {
      kind: 'retry',
      page,
      attempt,
      delayMs,
      message: error.appMessage ?? error.message,
      exchange: outcome.exchange,
    };
    await sleep(delayMs, signal);
  }
}

/**
 * One data request, retried as a page is (`tryLater`, and no answer unless the policy says
 * otherwise); resolves with the last outcome, never throws for what the app answered.
 */
export async function readPage(
  client: AppClient,
  body: DataRequestBody,
  options: { retry?: RetryPolicy; signal?: AbortSignal } = {},
): Promise<DataOutcome> {
  const it = attempts(client, body, 1, options.retry ?? {}, options.signal);
  for (;;) {
    const step = await it.next();
    if (step.done) return step.value;
  }
}

export async function* readPages(client: AppClient, input: ReadPagesInput): AsyncGenerator<PagesEvent> {
  const { type } = input;
  let page = input.resumeFrom?.page ?? 1;
  let pagination = input.resumeFrom?.pagination ?? null;
  let kind: 'full' | 'delta' | undefined;
  const seen = new Set<string>();
  for (;;) {
    const body: DataRequestBody = {
      requestedType: type,
      types: input.types,
      filter: input.filter,
      account: input.account,
      pagination,
      lastSynchronizedAt: input.lastSynchronizedAt,
      ...(input.operationId ? { operationId: input.operationId } : {}),
      ...(input.schema ? { schema: input.schema } : {}),
    };
    const it = attempts(client, body, page, input.retry ?? {}, input.signal);
    let step = await it.next();
    while (!step.done) {
      yield { ...step.value, type };
      step = await it.next();
    }
    const outcome = step.value;
    if (outcome.kind !== 'page') {
      yield { kind: 'failed', type, page, pagination, error: outcome.error, exchange: outcome.exchange };
      return;
    }
    const result = outcome.page;
    // The first page decides full or delta for the whole type.
    kind ??= result.synchronizationType;
    yield {
      kind: 'page',
      type,
      page,
      pagination,
      ...result,
      synchronizationType: kind,
      pageSynchronizationType: result.synchronizationType,
      exchange: outcome.exchange,
    };
    if (!result.hasNext) break;
    const key = JSON.stringify(result.nextPageConfig);
    if (seen.has(key)) {
      const error = new AppCallError(
        `${type}: page ${page} asks again for a page already read (paging loop)`,
        { path: '/api/v1/synchronizer/data', status: 200 },
      );
      yield { kind: 'failed', type, page, pagination, error, exchange: outcome.exchange };
      return;
    }
    seen.add(key);
    pagination = result.nextPageConfig;
    page++;
  }
  yield { kind: 'done', type, pages: page, synchronizationType: kind ?? 'full' };
}
