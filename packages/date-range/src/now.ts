import type { CalendarDay } from './calendar.js';
import { DateRangeError, quote } from './errors.js';

/** Wall-clock date and time of `now`. */
export interface WallClock extends CalendarDay {
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
}

const NAIVE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?)?$/;
// A date-time followed by `Z` or an offset; group 1 is the naive part.
const WITH_ZONE = /^(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(?:Z|[+-]\d{2}(?::?\d{2})?)$/i;

// Intl formatters are expensive to build; one per zone lives for the life of the process.
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string, input: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (formatter === undefined) {
    try {
      formatter = new Intl.DateTimeFormat('en-US', {
        timeZone,
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
        hourCycle: 'h23',
      });
    } catch {
      throw new DateRangeError(
        'invalid-time-zone',
        `Invalid time zone ${quote(timeZone)}: expected an IANA time zone such as "Europe/Berlin"`,
        input,
        0,
        timeZone,
      );
    }
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

function invalidNow(text: string, input: string): DateRangeError {
  return new DateRangeError(
    'invalid-now',
    `Invalid now ${quote(text)}: expected a Date or an ISO date-time such as "2026-11-22T15:30:00"`,
    input,
    0,
    text,
  );
}

function inZone(instant: Date, timeZone: string, input: string): WallClock {
  let year = 0;
  let month = 0;
  let day = 0;
  let hour = 0;
  let minute = 0;
  let second = 0;
  for (const part of formatterFor(timeZone, input).formatToParts(instant)) {
    switch (part.type) {
      case 'year':
        year = Number(part.value);
        break;
      case 'month':
        month = Number(part.value);
        break;
      case 'day':
        day = Number(part.value);
        break;
      case 'hour':
        hour = Number(part.value);
        break;
      case 'minute':
        minute = Number(part.value);
        break;
      case 'second':
        second = Number(part.value);
        break;
    }
  }
  return { year, month, day, hour, minute, second };
}

function local(instant: Date): WallClock {
  return {
    year: instant.getFullYear(),
    month: instant.getMonth() + 1,
    day: instant.getDate(),
    hour: instant.getHours(),
    minute: instant.getMinutes(),
    second: instant.getSeconds(),
  };
}

function fromInstant(
  instant: Date,
  timeZone: string | undefined,
  original: string,
  input: string,
): WallClock {
  if (Number.isNaN(instant.getTime())) throw invalidNow(original, input);
  return timeZone === undefined ? local(instant) : inZone(instant, timeZone, input);
}

function parseNaive(text: string): WallClock | undefined {
  const match = NAIVE.exec(text);
  if (match === null) return undefined;
  const [, y, mo, d, h, mi, s] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h ?? 0);
  const minute = Number(mi ?? 0);
  const second = Number(s ?? 0);
  // Round-trip through UTC to reject dates like 2026-02-30 without local-zone effects.
  const check = new Date(Date.UTC(2000, month - 1, day));
  check.setUTCFullYear(year);
  const valid =
    year >= 1 &&
    check.getUTCMonth() === month - 1 &&
    check.getUTCDate() === day &&
    hour < 24 &&
    minute < 60 &&
    second < 60;
  return valid ? { year, month, day, hour, minute, second } : undefined;
}

// Callers usually pass the same `now` string for many parses; remembering the last one skips
// the regex on the hot path.
let lastText: string | undefined;
let lastTimeZone: string | undefined;
let lastWallClock: WallClock | undefined;

/**
 * Resolves `options.now` / `options.timeZone` to wall-clock date and time. Throws
 * `DateRangeError` ('invalid-time-zone' or 'invalid-now').
 */
export function resolveNow(
  now: Date | string | undefined,
  timeZone: string | undefined,
  input: string,
): WallClock {
  if (typeof now === 'string') {
    if (now === lastText && timeZone === lastTimeZone && lastWallClock !== undefined) return lastWallClock;
    // A naive string is already wall-clock time, but a bad zone is still the caller's mistake.
    if (timeZone !== undefined) formatterFor(timeZone, input);
    // An instant string is not cached: without a timeZone its day depends on process.env.TZ.
    const zoned = WITH_ZONE.exec(now);
    if (zoned !== null) {
      // Date parsing rolls 2026-02-30 over to March, so the calendar part is checked first.
      if (parseNaive(zoned[1]!) === undefined) throw invalidNow(now, input);
      return fromInstant(new Date(now), timeZone, now, input);
    }
    const wallClock = parseNaive(now);
    if (wallClock === undefined) throw invalidNow(now, input);
    lastText = now;
    lastTimeZone = timeZone;
    lastWallClock = wallClock;
    return wallClock;
  }
  if (now === undefined) return fromInstant(new Date(), timeZone, '', input);
  if (!(now instanceof Date)) throw invalidNow(String(now), input);
  return fromInstant(now, timeZone, String(now), input);
}
