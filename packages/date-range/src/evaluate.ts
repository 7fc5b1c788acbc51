import type { Operand, Statement } from './ast.js';
import { endOf, shift, shiftDays, startOf, toDate } from './calendar.js';
import { spanError } from './errors.js';
import { endOfDayString, formatDay, startOfDayString } from './format.js';
import type { DateRange } from './types.js';

// First and last day are computed separately because a range bound needs only one of them, and
// each date-fns call allocates.

/** First day of what an operand denotes. */
function firstDate(operand: Operand, today: Date): Date {
  switch (operand.kind) {
    case 'days':
      return toDate(operand.first);
    case 'today':
      return today;
    case 'yesterday':
      return shiftDays(today, -1);
    case 'current':
      // N whole periods ending with the current one.
      return shift(operand.unit, startOf(operand.unit, today), 1 - operand.count);
    case 'previous':
    case 'ago':
      // The N periods before the current one / the single period N units back: same first day.
      return shift(operand.unit, startOf(operand.unit, today), -operand.count);
  }
}

/** Last day of what an operand denotes. */
function lastDate(operand: Operand, today: Date): Date {
  switch (operand.kind) {
    case 'days':
      return toDate(operand.last);
    case 'today':
      return today;
    case 'yesterday':
      return shiftDays(today, -1);
    case 'current':
      return endOf(operand.unit, today);
    case 'previous':
      return shiftDays(startOf(operand.unit, today), -1);
    case 'ago':
      return endOf(operand.unit, firstDate(operand, today));
  }
}

/** `YYYY-MM-DD` of a bound; huge counts leave the 4-digit years (or produce Invalid Date). */
function dayOf(date: Date, operand: Operand, input: string): string {
  const day = formatDay(date);
  if (day === undefined) {
    throw spanError(
      'out-of-range',
      'Out of range:',
      input,
      operand.start,
      input.slice(operand.start, operand.end),
      'the range must stay within the years 0001 to 9999',
    );
  }
  return day;
}

function lowerDay(operand: Operand, today: Date, input: string): string {
  return dayOf(firstDate(operand, today), operand, input);
}

function upperDay(operand: Operand, today: Date, input: string): string {
  // "N units ago" as an upper bound is exclusive: the range stops the day before that period.
  const last = operand.kind === 'ago' ? shiftDays(firstDate(operand, today), -1) : lastDate(operand, today);
  return dayOf(last, operand, input);
}

/**
 * Turns a syntax tree into a range relative to `today` (a local-midnight Date). Throws
 * `DateRangeError` for reversed ranges and dates outside 0001..9999.
 */
export function evaluate(statement: Statement, today: Date, input: string): DateRange {
  if (statement.kind === 'single') {
    const { operand } = statement;
    return {
      _min: startOfDayString(lowerDay(operand, today, input)),
      _max: endOfDayString(dayOf(lastDate(operand, today), operand, input)),
    };
  }
  const { lower, upper } = statement;
  const min = lower === undefined ? undefined : lowerDay(lower, today, input);
  const max = upper === undefined ? undefined : upperDay(upper, today, input);
  if (lower !== undefined && upper !== undefined && min !== undefined && max !== undefined && min > max) {
    const a = input.slice(lower.start, lower.end);
    const b = input.slice(upper.start, upper.end);
    throw spanError(
      'reversed-range',
      'Reversed range',
      input,
      lower.start,
      input.slice(lower.start, upper.end),
      `${JSON.stringify(a)} starts on ${min}, after ${JSON.stringify(b)} ends on ${max}`,
    );
  }
  const range: DateRange = {};
  if (min !== undefined) range._min = startOfDayString(min);
  if (max !== undefined) range._max = endOfDayString(max);
  return range;
}
