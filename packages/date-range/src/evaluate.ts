import type { Operand, Statement } from './ast.js';
import {
  type Period,
  periodAgo,
  periodsBeforeCurrent,
  periodsEndingWithCurrent,
  shiftDays,
  toDate,
} from './calendar.js';
import { spanError } from './errors.js';
import { endOfDayString, formatDay, startOfDayString } from './format.js';
import type { DateRange } from './types.js';

function period(operand: Operand, today: Date): Period {
  switch (operand.kind) {
    case 'days':
      return { first: toDate(operand.first), last: toDate(operand.last) };
    case 'today':
      return { first: today, last: today };
    case 'yesterday': {
      const yesterday = shiftDays(today, -1);
      return { first: yesterday, last: yesterday };
    }
    case 'current':
      return periodsEndingWithCurrent(operand.unit, today, operand.count);
    case 'previous':
      return periodsBeforeCurrent(operand.unit, today, operand.count);
    case 'ago':
      return periodAgo(operand.unit, today, operand.count);
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
  return dayOf(period(operand, today).first, operand, input);
}

function upperDay(operand: Operand, today: Date, input: string): string {
  const { first, last } = period(operand, today);
  // "N units ago" as an upper bound is exclusive: the range stops the day before that period.
  return dayOf(operand.kind === 'ago' ? shiftDays(first, -1) : last, operand, input);
}

/**
 * Turns a syntax tree into a range relative to `today` (a local-midnight Date). Throws
 * `DateRangeError` for reversed ranges and dates outside 0001..9999.
 */
export function evaluate(statement: Statement, today: Date, input: string): DateRange {
  if (statement.kind === 'single') {
    const { operand } = statement;
    const { first, last } = period(operand, today);
    return {
      _min: startOfDayString(dayOf(first, operand, input)),
      _max: endOfDayString(dayOf(last, operand, input)),
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
