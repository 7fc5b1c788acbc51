import type { AppClient } from './app-client.js';
import type { SyncEvent } from './events.js';
import { type ReadPagesInput, readPages } from './read-pages.js';

// Reads one type's pages as the service does (see read-pages.ts), for a consumer that only
// stores them: the events carry no exchange, and a failure throws the app's AppCallError.

export { DEFAULT_RETRY, type RetryPolicy, retryDelay } from './retry.js';

export type ReadTypeInput = ReadPagesInput;
export type { DoneEvent, PageEvent, RetryEvent, SyncEvent } from './events.js';

export async function* readType(client: AppClient, input: ReadTypeInput): AsyncGenerator<SyncEvent> {
  for await (const event of readPages(client, input)) {
    if (event.kind === 'failed') throw event.error;
    if (event.kind === 'page') {
      const { exchange: _, pageSynchronizationType: __, ...page } = event;
      yield page;
    } else if (event.kind === 'retry') {
      const { exchange: _, ...retry } = event;
      yield retry;
    } else yield event;
  }
}
