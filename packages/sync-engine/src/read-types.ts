import type { AppClient } from './app-client.js';
import { type ReadTypeInput, readType, type SyncEvent } from './read-type.js';

// The service fetches the types of one sync concurrently. This merges their page streams into
// one: whichever type has a page ready is yielded first, and each type fetches its next page only
// after its previous one was consumed, so at most one page per type is held at a time.

export interface ReadTypesInput extends Omit<ReadTypeInput, 'type' | 'resumeFrom'> {
  /** per type: where to resume (see ReadTypeInput.resumeFrom) */
  resumeFrom?: Record<string, { page: number; pagination: Record<string, unknown> | null }>;
  /** types read at once; default all of them */
  concurrency?: number;
}

export async function* readTypes(client: AppClient, input: ReadTypesInput): AsyncGenerator<SyncEvent> {
  const { resumeFrom, concurrency, ...common } = input;
  const queue = [...input.types];
  const limit = Math.max(1, concurrency ?? queue.length);
  const running = new Map<
    AsyncGenerator<SyncEvent>,
    Promise<{ it: AsyncGenerator<SyncEvent>; r: IteratorResult<SyncEvent> }>
  >();
  const pull = (it: AsyncGenerator<SyncEvent>) =>
    running.set(
      it,
      it.next().then((r) => ({ it, r })),
    );
  const startNext = () => {
    const type = queue.shift();
    if (type === undefined) return;
    const from = resumeFrom?.[type];
    pull(readType(client, { ...common, type, ...(from ? { resumeFrom: from } : {}) }));
  };
  for (let i = 0; i < limit; i++) startNext();
  try {
    while (running.size > 0) {
      const { it, r } = await Promise.race(running.values());
      if (r.done) {
        running.delete(it);
        startNext();
        continue;
      }
      yield r.value;
      pull(it);
    }
  } finally {
    // A failure of one type (or the consumer stopping) ends the others.
    for (const [it, pending] of running) {
      pending.catch(() => {});
      await it.return(undefined).catch(() => {});
    }
  }
}
