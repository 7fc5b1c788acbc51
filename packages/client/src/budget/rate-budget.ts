import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BudgetStore, RateLimit } from './budget-store.js';

/**
 * One token's budget in this process: a FIFO of callers in front of the store. Callers reserve
 * slots one after another (so the queue is fair: first asked, first sent) and then each waits for
 * its own slot, so waiting overlaps and the store sees one reservation at a time per key.
 *
 * A slot counts from when its request was answered, not sent (the service counts a request when
 * it handles it, which can be later): before reserving, a caller waits until the request
 * `limit.requests` places ahead of it in this process has been answered.
 */
export class RateBudget {
  #tail: Promise<unknown> = Promise.resolve();
  #waiting = 0;
  /** Answer promises of this process's latest grants, oldest first (at most `limit.requests`). */
  #answered: Promise<void>[] = [];

  constructor(
    readonly store: BudgetStore,
    readonly key: string,
    readonly limit: RateLimit,
  ) {}

  /** Callers queued or sleeping towards their slot. */
  get waiting(): number {
    return this.#waiting;
  }

  /**
   * Resolves when the caller may send one request, to a function to call once that request has
   * been answered (or has failed).
   */
  async acquire(signal?: AbortSignal): Promise<() => Promise<void>> {
    // No limit: nothing to reserve (and nothing to queue behind).
    if (this.limit.requests === Number.POSITIVE_INFINITY) return async () => {};
    this.#waiting++;
    let markAnswered!: () => void;
    const answered = new Promise<void>((resolve) => {
      markAnswered = resolve;
    });
    const reserved = this.#tail.then(async () => {
      const ahead = this.#answered.length >= this.limit.requests ? this.#answered[0] : undefined;
      if (ahead) await ahead;
      let reservation = await this.store.reserve(this.key, this.limit);
      // Another process's request bounds this slot and is not answered yet.
      while ('retryInMs' in reservation) {
        await sleep(reservation.retryInMs);
        reservation = await this.store.reserve(this.key, this.limit);
      }
      this.#answered.push(answered);
      if (this.#answered.length > this.limit.requests) this.#answered.shift();
      return reservation;
    });
    this.#tail = reserved.catch(() => undefined);
    let slot: number | undefined;
    const done = async () => {
      if (slot !== undefined) await this.store.complete(this.key, slot).catch(() => undefined);
      markAnswered();
    };
    try {
      const reservation = await reserved;
      slot = reservation.slot;
      if (reservation.delayMs > 0)
        await sleep(reservation.delayMs, undefined, signal ? { signal } : undefined);
      return done;
    } catch (error) {
      await done();
      throw error;
    } finally {
      this.#waiting--;
    }
  }

  /** The service answered 429: nobody using this budget sends again before `delayMs`. */
  async refused(delayMs: number): Promise<void> {
    await this.store.block(this.key, delayMs);
  }
}

const REGISTRY = Symbol.for('@weft/client.rate-budgets');
type Registry = WeakMap<BudgetStore, Map<string, RateBudget>>;

/**
 * The budget for one token at one workspace, shared by every client in the process that uses
 * the same store. The key holds a hash of the token, never the token.
 */
export function budgetFor(store: BudgetStore, origin: string, token: string, limit: RateLimit): RateBudget {
  const holder = globalThis as { [REGISTRY]?: Registry };
  holder[REGISTRY] ??= new WeakMap();
  let byKey = holder[REGISTRY].get(store);
  if (!byKey) {
    byKey = new Map();
    holder[REGISTRY].set(store, byKey);
  }
  const key = budgetKey(origin, token);
  let budget = byKey.get(key);
  if (!budget) {
    budget = new RateBudget(store, key, limit);
    byKey.set(key, budget);
  }
  return budget;
}

/** `<origin>#<sha256 of the token, first 32 hex>`: stable across processes, reveals nothing. */
export function budgetKey(origin: string, token: string): string {
  return `${origin}#${createHash('sha256').update(token).digest('hex').slice(0, 32)}`;
}
