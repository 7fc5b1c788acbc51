import { describe, expect, it } from 'vitest';
import { daysInMonth, endOf, shift, startOf, toDate } from './calendar.js';
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

  it.each([
    ['week', '2027-01-01', '2026-12-28', '2027-01-03'],
    ['month', '2024-02-10', '2024-02-01', '2024-02-29'],
    ['quarter', '2026-11-22', '2026-10-01', '2026-12-31'],
    ['year', '2026-11-22', '2026-01-01', '2026-12-31'],
    ['day', '2026-11-22', '2026-11-22', '2026-11-22'],
  ] as const)('the %s containing %s is %s..%s', (unit, day, first, last) => {
    const [year, month, date] = day.split('-').map(Number) as [number, number, number];
    const today = toDate({ year, month, day: date });
    expect(formatDay(startOf(unit, today))).toBe(first);
    expect(formatDay(endOf(unit, today))).toBe(last);
  });

  it('shifts by whole units', () => {
    const first = toDate({ year: 2026, month: 10, day: 1 });
    expect(formatDay(shift('quarter', first, -2))).toBe('2026-04-01');
    expect(formatDay(shift('week', toDate({ year: 2026, month: 12, day: 28 }), 1))).toBe('2027-01-04');
    expect(shift('month', first, 0)).toBe(first);
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
