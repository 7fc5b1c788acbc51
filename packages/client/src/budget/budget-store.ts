// Where the rate budget lives. The in-memory store serves one process; a shared store (the
// Postgres one, or your own) lets several processes that use the same token share one budget.

export interface RateLimit {
  /** Requests allowed in any window of `perMs` milliseconds. */
  requests: number;
  perMs: number;
}

export type Reservation =
  /** Send in `delayMs`; name the slot in `complete` once answered. */
  | { delayMs: number; slot: number }
  /** A request that bounds the next slot is still unanswered (maybe in another process): ask again soon. */
  | { retryInMs: number };

export interface BudgetStore {
  /**
   * Reserves the next send slot for `key` under `limit`: never more than `limit.requests`
   * requests inside any `limit.perMs`, counting each request from when it was answered.
   * Reservations of one key are granted in the order they are made.
   */
  reserve(key: string, limit: RateLimit): Promise<Reservation>;
  /**
   * The request sent in `slot` has been answered: the slot now counts from this moment. The
   * service counts a request when it handles it, which may be later than when it was sent, so
   * counting from the answer keeps the window honest when the network or the service is slow.
   */
  complete(key: string, slot: number): Promise<void>;
  /** The service refused a request of `key`: grant no slot in the next `delayMs`. */
  block(key: string, delayMs: number): Promise<void>;
}

/** State of one key's window: the last `requests` slots, those still unanswered, a refusal horizon. */
export interface WindowState {
  slots: number[];
  pending: number[];
  blockedUntil: number;
}

/** An unanswered request stops bounding the window after this long (its process may have died). */
export const PENDING_EXPIRY_MS = 30_000;
const POLL_MS = 20;

/**
 * The sliding-window rule shared by every store. A request may have been handled any time
 * between its slot and its answer, so each counts until its answer (an unanswered one, without
 * end). The next slot is the latest of now, the refusal horizon, just after the previous slot,
 * and one window after the `requests`-th latest answer; when that one is still unanswered the
 * caller must ask again.
 */
export function nextSlot(
  state: WindowState,
  limit: RateLimit,
  now: number,
): { state: WindowState; reservation: Reservation } {
  const pending = state.pending.filter((p) => now - p < PENDING_EXPIRY_MS);
  const until = (s: number) => (pending.includes(s) ? Number.POSITIVE_INFINITY : s);
  const byAnswer = [...state.slots].sort((a, b) => compare(until(a), until(b)));
  let slot = Math.max(now, state.blockedUntil);
  // Strictly after the previous slot (by a microsecond), so a slot's time also names it.
  if (state.slots.length > 0) slot = Math.max(slot, Math.max(...state.slots) + 0.001);
  if (byAnswer.length >= limit.requests) {
    const anchor = until(byAnswer[byAnswer.length - limit.requests]!);
    if (anchor === Number.POSITIVE_INFINITY) {
      return { state: { ...state, pending }, reservation: { retryInMs: POLL_MS } };
    }
    slot = Math.max(slot, anchor + limit.perMs);
  }
  // Only the `requests` latest answers can bound later slots.
  const kept = [...byAnswer, slot].slice(-limit.requests);
  return {
    state: {
      slots: kept,
      pending: [...pending.filter((p) => kept.includes(p)), slot],
      blockedUntil: state.blockedUntil,
    },
    reservation: { delayMs: slot - now, slot },
  };
}

function compare(a: number, b: number): number {
  return a === b ? 0 : a < b ? -1 : 1;
}

/** Marks `slot` answered at `now`: from then on it counts until `now` (or its slot, if later). */
export function completeSlot(state: WindowState, slot: number, now: number): WindowState {
  const p = state.pending.indexOf(slot);
  const pending = p < 0 ? state.pending : [...state.pending.slice(0, p), ...state.pending.slice(p + 1)];
  const i = state.slots.indexOf(slot);
  if (i < 0 || now <= slot) return { ...state, pending };
  const slots = [...state.slots];
  slots[i] = now;
  return { ...state, slots, pending };
}
