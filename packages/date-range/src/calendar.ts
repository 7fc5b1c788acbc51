import {
  addDays,
  addMonths,
  addQuarters,
  addWeeks,
  addYears,
  endOfISOWeek,
  endOfMonth,
  endOfQuarter,
  endOfYear,
  startOfISOWeek,
  startOfMonth,
  startOfQuarter,
  startOfYear,
} from 'date-fns';
import type { DateRangeUnit } from './keywords.js';

/** A calendar date without time or zone; `month` is 1-based. */
export interface CalendarDay {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

/**
 * Local-midnight Date for a calendar day. Only the date parts of these Dates are ever read, so a
 * DST jump at midnight (which moves the time to 01:00) cannot change the day.
 */
export function toDate(day: CalendarDay): Date {
  const date = new Date(day.year, day.month - 1, day.day);
  // The Date constructor maps years 0-99 to 1900-1999.
  if (day.year < 100) date.setFullYear(day.year, day.month - 1, day.day);
  return date;
}

const MONTH_LENGTHS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

/** Number of days in a month (1-based), leap years included. */
export function daysInMonth(year: number, month: number): number {
  // Pure arithmetic: this runs for every literal date, and a Date per check showed in profiles.
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return MONTH_LENGTHS[month - 1] ?? 0;
}

const identity = (date: Date): Date => date;

const START_OF: Record<DateRangeUnit, (date: Date) => Date> = {
  day: identity,
  week: startOfISOWeek,
  month: startOfMonth,
  quarter: startOfQuarter,
  year: startOfYear,
};

const END_OF: Record<DateRangeUnit, (date: Date) => Date> = {
  day: identity,
  week: endOfISOWeek,
  month: endOfMonth,
  quarter: endOfQuarter,
  year: endOfYear,
};

const ADD: Record<DateRangeUnit, (date: Date, amount: number) => Date> = {
  day: addDays,
  week: addWeeks,
  month: addMonths,
  quarter: addQuarters,
  year: addYears,
};

/** First day of the `unit` containing `date`. */
export function startOf(unit: DateRangeUnit, date: Date): Date {
  return START_OF[unit](date);
}

/** Last day of the `unit` containing `date`. */
export function endOf(unit: DateRangeUnit, date: Date): Date {
  return END_OF[unit](date);
}

/** `date` moved by whole days; negative moves back. */
export function shiftDays(date: Date, days: number): Date {
  return addDays(date, days);
}

/** `date` moved by whole `unit`s; negative moves back. Callers pass the first day of a period, so month ends cannot be clamped. */
export function shift(unit: DateRangeUnit, date: Date, amount: number): Date {
  return amount === 0 ? date : ADD[unit](date, amount);
}
