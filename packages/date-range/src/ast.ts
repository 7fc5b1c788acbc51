import type { CalendarDay } from './calendar.js';
import type { DateRangeUnit } from './keywords.js';

/** Source span of a node, for error messages. `end` is exclusive. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

/**
 * One side of a range, or the whole of a single-date statement.
 *
 * - `days`: a literal date (`first === last`), or in lenient mode whatever chrono-node recognised.
 * - `today` / `yesterday`.
 * - `current`: `this|last [N] <unit>` — N whole periods ending with the current one.
 * - `previous`: `previous [N] <unit>` — N whole periods before the current one.
 * - `ago`: `[N] <unit> ago` — the single period N units before the current one; only a range bound.
 */
export type Operand = Span &
  (
    | { readonly kind: 'days'; readonly first: CalendarDay; readonly last: CalendarDay }
    | { readonly kind: 'today' | 'yesterday' }
    | { readonly kind: 'current' | 'previous' | 'ago'; readonly count: number; readonly unit: DateRangeUnit }
  );

/** A parsed input: a single operand, or a range with at least one bound. */
export type Statement =
  | { readonly kind: 'single'; readonly operand: Operand }
  | { readonly kind: 'range'; readonly lower?: Operand; readonly upper?: Operand };
