// Where the rate budget lives. The in-memory store serves one process; a shared store (the
// Postgres one, or your own) lets several processes that use the same token share one budget.

export interface RateLimit {
  /** Requests allowed in any window of `perMs` milliseconds. */
  requests: number;
  perMs: number;
}

export interface BudgetStore {
  /**
   * Reserves the next send slot for `key` under `limit` (a sliding window: never more than
   * `limit.requests` slots inside any `limit.perMs`), and resolves to how many milliseconds from
   * now that slot starts. Reservations of one key are granted in the order they are made.
   */
  reserve(key: string, limit: RateLimit): Promise<number>;
  /** The service refused a request of `key`: grant no slot in the next `delayMs`. */
  block(key: string, delayMs: number): Promise<void>;
}

/** State of one key's window: the start of the last `requests` slots, and a refusal horizon. */
export interface WindowState {
  slots: number[];
  blockedUntil: number;
}

/**
 * The sliding-window rule shared by every store: the next slot is the latest of now, the refusal
 * horizon, the previous slot, and one window after the slot `requests` places back.
 */
export function nextSlot(state: WindowState, limit: RateLimit, now: number): WindowState & { slot: number } {
  const { slots } = state;
  let slot = Math.max(now, state.blockedUntil);
  if (slots.length > 0) slot = Math.max(slot, slots[slots.length - 1]!);
  if (slots.length >= limit.requests)
    slot = Math.max(slot, slots[slots.length - limit.requests]! + limit.perMs);
  const kept = [...slots, slot].slice(-limit.requests);
  return { slots: kept, blockedUntil: state.blockedUntil, slot };
}
