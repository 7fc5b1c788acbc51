import { describe, expect, it } from 'vitest';
import { daysInMonth, toDate } from './calendar.js';
import { endOfDayString, formatDay, startOfDayString } from './format.js';

describe('calendar', () => {
  it.each([
    [2024, 2, 29],
    [2023, 2, 28],
    [2000, 2, 29],
    [1900, 2, 28],
    [2026, 1, 31],
    [2026, 4, 30],
    [2026, 12, 31],
  ])('daysInMonth(%i, %i) = %i', (year, month, days) => {
    expect(daysInMonth(year, month)).toBe(days);
  });

  it('builds dates for years below 100 without the 1900 offset', () => {
    expect(formatDay(toDate({ year: 42, month: 3, day: 5 }))).toBe('0042-03-05');
  });
});

describe('format', () => {
  it('formats the start and end of a local day', () => {
    const day = formatDay(new Date(2026, 0, 5, 13, 14, 15));
    expect(day).toBe('2026-01-05');
    expect(startOfDayString(day!)).toBe('2026-01-05T00:00:00.000');
    expect(endOfDayString(day!)).toBe('2026-01-05T23:59:59.999');
  });

  it('has no 4-digit form outside 0001..9999 or for an invalid Date', () => {
    const early = new Date(2026, 0, 1);
    early.setFullYear(0);
    expect(formatDay(early)).toBeUndefined();
    expect(formatDay(new Date(10000, 0, 1))).toBeUndefined();
    expect(formatDay(new Date(Number.NaN))).toBeUndefined();
  });
});
