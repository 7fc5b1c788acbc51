import { toDate } from './calendar.js';
import { DateRangeError, type DateRangeErrorCode } from './errors.js';
import { evaluate } from './evaluate.js';
import { parseLenient } from './lenient.js';
import { resolveNow, type WallClock } from './now.js';
import { parseStatement } from './parse.js';
import type { DateRange, ParseDateRangeOptions } from './types.js';

// Only syntax errors get a lenient retry; a reversed range or a bad count is wrong in any syntax.
const RETRYABLE: ReadonlySet<DateRangeErrorCode> = new Set([
  'unexpected-token',
  'unexpected-end',
  'invalid-date',
]);

// resolveNow returns the same object for a repeated `now` string, so its Date can be reused too.
// Safe because nothing mutates these Dates (date-fns always returns new ones). The date parts are
// re-checked because the process time zone (process.env.TZ) may have changed since it was built.
let lastClock: WallClock | undefined;
let lastToday = new Date(0);

function todayOf(clock: WallClock): Date {
  if (
    clock !== lastClock ||
    lastToday.getDate() !== clock.day ||
    lastToday.getMonth() !== clock.month - 1 ||
    lastToday.getFullYear() !== clock.year
  ) {
    lastClock = clock;
    lastToday = toDate(clock);
  }
  return lastToday;
}

/**
 * Parses a plain-English date or date range (`today`, `22-11-2026`, `last 3 months`,
 * `between 3 months ago and 2 months ago`, `from 1-10-2026`, ...) into `{_min, _max}`.
 *
 * @example
 * parseDateRange('last 3 months', { now: '2026-11-22T15:30:00' });
 * // => { _min: '2026-09-01T00:00:00.000', _max: '2026-11-30T23:59:59.999' }
 * @throws DateRangeError with the position and token of the problem.
 */
export function parseDateRange(input: string, options: ParseDateRangeOptions = {}): DateRange {
  if (typeof input !== 'string') throw new TypeError('parseDateRange: input must be a string');
  const now = resolveNow(options.now, options.timeZone, input);
  const today = todayOf(now);
  try {
    return evaluate(parseStatement(input), today, input);
  } catch (error) {
    if (options.lenient !== true || !(error instanceof DateRangeError) || !RETRYABLE.has(error.code)) {
      throw error;
    }
    const range = parseLenient(input, now, today);
    if (range === undefined) throw error;
    return range;
  }
}
