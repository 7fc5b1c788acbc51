import {
  type BudgetStore,
  completeSlot,
  nextSlot,
  type RateLimit,
  type Reservation,
  type WindowState,
} from './budget-store.js';

/** Keeps the budget in this process's memory. */
export class MemoryBudgetStore implements BudgetStore {
  readonly #windows = new Map<string, WindowState>();

  #state(key: string): WindowState {
    return this.#windows.get(key) ?? { slots: [], pending: [], blockedUntil: 0 };
  }

  async reserve(key: string, limit: RateLimit): Promise<Reservation> {
    const next = nextSlot(this.#state(key), limit, Date.now());
    this.#windows.set(key, next.state);
    return next.reservation;
  }

  async complete(key: string, slot: number): Promise<void> {
    this.#windows.set(key, completeSlot(this.#state(key), slot, Date.now()));
  }

  async block(key: string, delayMs: number): Promise<void> {
    const state = this.#state(key);
    this.#windows.set(key, { ...state, blockedUntil: Math.max(state.blockedUntil, Date.now() + delayMs) });
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
