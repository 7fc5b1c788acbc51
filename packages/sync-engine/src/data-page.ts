import { PROTOCOL_PATHS } from '@weft/core/protocol';
import { errorOf } from './answer.js';
import { AppCallError } from './app-call-error.js';
import type { Exchange } from './exchange.js';
import { type ReadDataPage, readDataAnswer } from './reader/data.js';
import type { ReaderWarning } from './reader/warning.js';

// A data answer as the service reads it (see reader/data.ts): a page, a request to try later, or
// an error.

/** A data page as the service reads it, with what the reader took or left out to read it. */
export interface DataPage extends ReadDataPage {
  warnings: ReaderWarning[];
}

/** What one data request gave: a page, a request to try later, or an error; always with the exchange. */
export type DataOutcome =
  | { kind: 'page'; page: DataPage; exchange: Exchange }
  | { kind: 'tryLater'; error: AppCallError; exchange: Exchange }
  | { kind: 'error'; error: AppCallError; exchange: Exchange };

/** Reads the answer of a data request as the service does. */
export function classifyDataAnswer(exchange: Exchange): DataOutcome {
  const error = errorOf(exchange);
  if (error) return { kind: error.tryLater ? 'tryLater' : 'error', error, exchange };
  const read = readDataAnswer(exchange.json);
  if (!read.ok) {
    return {
      kind: 'error',
      error: new AppCallError(`${PROTOCOL_PATHS.data}: unexpected answer (${read.problem})`, {
        path: PROTOCOL_PATHS.data,
        status: exchange.status ?? 200,
      }),
      exchange,
    };
  }
  return { kind: 'page', page: { ...read.value, warnings: read.warnings }, exchange };
}
