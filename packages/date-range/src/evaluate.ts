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
import { formatDay, formatEndOfDay, formatStartOfDay } from './format.js';
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

/** Output is 4-digit years; huge counts also produce Invalid Date (NaN), caught here too. */
function checkYear(date: Date, operand: Operand, input: string): Date {
  const year = date.getFullYear();
  if (!(year >= 1 && year <= 9999)) {
    throw spanError(
      'out-of-range',
      'Out of range:',
      input,
      operand.start,
      input.slice(operand.start, operand.end),
      'the range must stay within the years 0001 to 9999',
    );
  }
  return date;
}

function lowerBound(operand: Operand, today: Date, input: string): Date {
  return checkYear(period(operand, today).first, operand, input);
}

function upperBound(operand: Operand, today: Date, input: string): Date {
  const { first, last } = period(operand, today);
  // "N units ago" as an upper bound is exclusive: the range stops the day before that period.
  return checkYear(operand.kind === 'ago' ? shiftDays(first, -1) : last, operand, input);
}

function dayKey(date: Date): number {
  return date.getFullYear() * 10000 + date.getMonth() * 100 + date.getDate();
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
      _min: formatStartOfDay(checkYear(first, operand, input)),
      _max: formatEndOfDay(checkYear(last, operand, input)),
    };
  }
  const { lower, upper } = statement;
  const min = lower === undefined ? undefined : lowerBound(lower, today, input);
  const max = upper === undefined ? undefined : upperBound(upper, today, input);
  if (min !== undefined && max !== undefined && lower !== undefined && upper !== undefined) {
    if (dayKey(min) > dayKey(max)) {
      const a = input.slice(lower.start, lower.end);
      const b = input.slice(upper.start, upper.end);
      throw spanError(
        'reversed-range',
        'Reversed range',
        input,
        lower.start,
        input.slice(lower.start, upper.end),
        `${JSON.stringify(a)} starts on ${formatDay(min)}, after ${JSON.stringify(b)} ends on ${formatDay(max)}`,
      );
    }
  }
  const range: DateRange = {};
  if (min !== undefined) range._min = formatStartOfDay(min);
  if (max !== undefined) range._max = formatEndOfDay(max);
  return range;
}
