import { PROTOCOL_PATHS, synchronizationType } from '@weft/core/protocol';
import { z } from 'zod';
import { errorOf } from './answer.js';
import { AppCallError } from './app-call-error.js';
import type { Exchange } from './exchange.js';

// A data answer as the service reads it: only `items` is required; no `pagination` (or
// `hasNext` not true) means no next page; no `synchronizationType` means `full`.

type Json = Record<string, unknown>;

/** A data page as the service reads it: absent `pagination` means no next page, absent type means full. */
export interface DataPage {
  items: Json[];
  hasNext: boolean;
  nextPageConfig: Json | null;
  synchronizationType: 'full' | 'delta';
}

/** What one data request gave: a page, a request to try later, or an error; always with the exchange. */
export type DataOutcome =
  | { kind: 'page'; page: DataPage; exchange: Exchange }
  | { kind: 'tryLater'; error: AppCallError; exchange: Exchange }
  | { kind: 'error'; error: AppCallError; exchange: Exchange };

const isRow = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const lenientData = z.looseObject({
  // Rows are checked to be objects, not copied: a page of thousands of rows is read as it came.
  items: z.array(z.custom<Json>(isRow, { message: 'expected an object' })),
  pagination: z
    .looseObject({
      hasNext: z.boolean().optional(),
      nextPageConfig: z.record(z.string(), z.unknown()).nullish(),
    })
    .nullish(),
  synchronizationType: synchronizationType.optional(),
});

/** Reads the answer of a data request as the service does. */
export function classifyDataAnswer(exchange: Exchange): DataOutcome {
  const error = errorOf(exchange);
  if (error) return { kind: error.tryLater ? 'tryLater' : 'error', error, exchange };
  const parsed = lenientData.safeParse(exchange.json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join('.') || 'body';
    return {
      kind: 'error',
      error: new AppCallError(
        `${PROTOCOL_PATHS.data}: unexpected answer (${where}: ${issue?.message ?? 'invalid'})`,
        { path: PROTOCOL_PATHS.data, status: exchange.status ?? 200 },
      ),
      exchange,
    };
  }
  const answer = parsed.data;
  const hasNext = answer.pagination?.hasNext === true;
  return {
    kind: 'page',
    page: {
      items: answer.items,
      hasNext,
      nextPageConfig: hasNext ? (answer.pagination?.nextPageConfig ?? {}) : null,
      synchronizationType: answer.synchronizationType ?? 'full',
    },
    exchange,
  };
}
