import type { AppClient, DataPage } from './app-client.js';
import { AppCallError } from './app-call-error.js';

// Reads one type's pages as the service does: the first request has `pagination: null`, each
// next one the previous page's `nextPageConfig`; a `{tryLater: true}` answer (or no answer)
// retries that same page after a growing delay, not the whole sync. Pages are yielded one at a
// time and the next is only fetched once the consumer asks for it, so nothing accumulates here.

type Json = Record<string, unknown>;

export interface RetryPolicy {
  /** attempts per page, the first included; default 6 */
  attempts?: number;
  /** delay before the first retry; doubles each time; default 1000 ms */
  baseDelayMs?: number;
  /** default 60 s */
  maxDelayMs?: number;
}

export interface ReadTypeInput {
  type: string;
  /** every type of the sync (sent as `types` for context) */
  types: string[];
  filter: Json;
  account: Json;
  lastSynchronizedAt: string | null;
  operationId?: string;
  retry?: RetryPolicy;
  /** resume a sync from a page already known: its number and the pagination that asks for it */
  resumeFrom?: { page: number; pagination: Json | null };
  signal?: AbortSignal;
}

export interface PageEvent extends DataPage {
  kind: 'page';
  type: string;
  /** 1-based */
  page: number;
  /** what was sent as `pagination` to get this page (store it to resume from this page) */
  pagination: Json | null;
}

export interface RetryEvent {
  kind: 'retry';
  type: string;
  page: number;
  attempt: number;
  delayMs: number;
  message: string;
}

export interface DoneEvent {
  kind: 'done';
  type: string;
  pages: number;
  synchronizationType: 'full' | 'delta';
}

export type SyncEvent = PageEvent | RetryEvent | DoneEvent;

export const DEFAULT_RETRY: Required<RetryPolicy> = { attempts: 6, baseDelayMs: 1000, maxDelayMs: 60_000 };

export function retryDelay(policy: Required<RetryPolicy>, attempt: number, error: AppCallError): number {
  const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return error.retryAfterMs !== undefined ? Math.min(policy.maxDelayMs, error.retryAfterMs) : backoff;
}

const sleep = (ms: number, signal?: AbortSignal) =>
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

export async function* readType(client: AppClient, input: ReadTypeInput): AsyncGenerator<SyncEvent> {
  const policy = { ...DEFAULT_RETRY, ...input.retry };
  let page = input.resumeFrom?.page ?? 1;
  let pagination = input.resumeFrom?.pagination ?? null;
  let kind: 'full' | 'delta' | undefined;
  const seen = new Set<string>();
  for (;;) {
    let result: DataPage | undefined;
    for (let attempt = 1; ; attempt++) {
      try {
        result = await client.data(
          {
            requestedType: input.type,
            types: input.types,
            filter: input.filter,
            account: input.account,
            pagination,
            lastSynchronizedAt: input.lastSynchronizedAt,
            ...(input.operationId ? { operationId: input.operationId } : {}),
          },
          input.signal,
        );
        break;
      } catch (error) {
        if (!(error instanceof AppCallError) || !error.retryable || attempt >= policy.attempts) throw error;
        const delayMs = retryDelay(policy, attempt, error);
        yield {
          kind: 'retry',
          type: input.type,
          page,
          attempt,
          delayMs,
          message: error.appMessage ?? error.message,
        };
        await sleep(delayMs, input.signal);
      }
    }
    // The first page decides full or delta for the whole type.
    kind ??= result.synchronizationType;
    yield { kind: 'page', type: input.type, page, pagination, ...result, synchronizationType: kind };
    if (!result.hasNext) break;
    const key = JSON.stringify(result.nextPageConfig);
    if (seen.has(key)) {
      throw new AppCallError(`${input.type}: page ${page} asks again for a page already read (paging loop)`, {
        path: '/api/v1/synchronizer/data',
        status: 200,
      });
    }
    seen.add(key);
    pagination = result.nextPageConfig;
    page++;
  }
  yield { kind: 'done', type: input.type, pages: page, synchronizationType: kind ?? 'full' };
}
