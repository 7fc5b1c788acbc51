import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BudgetStore, RateLimit } from './budget-store.js';

/**
 * One token's budget in this process: a FIFO of callers in front of the store. Callers reserve
 * slots one after another (so the queue is fair: first asked, first sent) and then each waits for
 * its own slot, so waiting overlaps and the store sees one reservation at a time per key.
 */
export class RateBudget {
  #tail: Promise<unknown> = Promise.resolve();
  #waiting = 0;

  constructor(
    readonly store: BudgetStore,
    readonly key: string,
    readonly limit: RateLimit,
  ) {}

  /** Callers queued or sleeping towards their slot. */
  get waiting(): number {
    return this.#waiting;
  }

  /** Resolves when the caller may send one request. */
  async acquire(signal?: AbortSignal): Promise<void> {
    // No limit: nothing to reserve (and nothing to queue behind).
    if (this.limit.requests === Number.POSITIVE_INFINITY) return;
    this.#waiting++;
    try {
      const reserved = this.#tail.then(() => this.store.reserve(this.key, this.limit));
      this.#tail = reserved.catch(() => undefined);
      const delay = await reserved;
      if (delay > 0) await sleep(delay, undefined, signal ? { signal } : undefined);
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
