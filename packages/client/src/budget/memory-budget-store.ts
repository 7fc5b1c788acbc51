import { type BudgetStore, nextSlot, type RateLimit, type WindowState } from './budget-store.js';

/** Keeps the budget in this process's memory. */
export class MemoryBudgetStore implements BudgetStore {
  readonly #windows = new Map<string, WindowState>();

  async reserve(key: string, limit: RateLimit): Promise<number> {
    const now = Date.now();
    const next = nextSlot(this.#windows.get(key) ?? { slots: [], blockedUntil: 0 }, limit, now);
    this.#windows.set(key, { slots: next.slots, blockedUntil: next.blockedUntil });
    return next.slot - now;
  }

  async block(key: string, delayMs: number): Promise<void> {
    const state = this.#windows.get(key) ?? { slots: [], blockedUntil: 0 };
    state.blockedUntil = Math.max(state.blockedUntil, Date.now() + delayMs);
    this.#windows.set(key, state);
  }
}

const DEFAULT_STORE = Symbol.for('@weft/client.default-budget-store');

/** The store every client of this process uses unless told otherwise (one per process, even if
 * the package is loaded twice). */
export function processBudgetStore(): BudgetStore {
  const holder = globalThis as { [DEFAULT_STORE]?: BudgetStore };
  holder[DEFAULT_STORE] ??= new MemoryBudgetStore();
  return holder[DEFAULT_STORE];
}
