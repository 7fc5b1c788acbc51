import { describe, expect, it } from 'vitest';
import { DateRangeError } from './errors.js';
import { parseDateRange } from './parse-date-range.js';

const NOW = '2026-11-22T15:30:00';

describe('lenient mode', () => {
  it.each([
    ['March 5, 2024', '2024-03-05T00:00:00.000', '2024-03-05T23:59:59.999'],
    ['2024-03-05', '2024-03-05T00:00:00.000', '2024-03-05T23:59:59.999'],
    ['2024/03/05', '2024-03-05T00:00:00.000', '2024-03-05T23:59:59.999'],
    ['5th of March 2024', '2024-03-05T00:00:00.000', '2024-03-05T23:59:59.999'],
    ['Nov 22 2026', '2026-11-22T00:00:00.000', '2026-11-22T23:59:59.999'],
    ['tomorrow', '2026-11-23T00:00:00.000', '2026-11-23T23:59:59.999'],
    ['March 5 - March 10, 2024', '2024-03-05T00:00:00.000', '2024-03-10T23:59:59.999'],
    ['between March 5, 2024 and today', '2024-03-05T00:00:00.000', '2026-11-22T23:59:59.999'],
    ['between 2024-03-05 and 2 months ago', '2024-03-05T00:00:00.000', '2026-08-31T23:59:59.999'],
    ['from 2024-03-05 to 2024-03-10', '2024-03-05T00:00:00.000', '2024-03-10T23:59:59.999'],
    ['from 1 March 2024 to March 10, 2024', '2024-03-01T00:00:00.000', '2024-03-10T23:59:59.999'],
    ['from March 5, 2024', '2024-03-05T00:00:00.000', null],
    ['to March 5, 2024', null, '2024-03-05T23:59:59.999'],
  ])('accepts %j', (input, min, max) => {
    expect(() => parseDateRange(input, { now: NOW })).toThrow(DateRangeError);
    const range = parseDateRange(input, { now: NOW, lenient: true });
    expect(range).toStrictEqual({
      ...(min === null ? {} : { _min: min }),
      ...(max === null ? {} : { _max: max }),
    });
  });

  // Every statement and operand kind of the strict grammar, including the ones chrono-node reads
  // differently (chrono takes "last month" as one day a month back, for instance).
  it.each([
    'today',
    'yesterday',
    '22-11-2026',
    '22 November 2026',
    '22 nov 2026',
    'this week',
    'last week',
    'last month',
    'last 3 months',
    'last 3 days',
    'last 2 weeks',
    'this quarter',
    'last year',
    'previous day',
    'previous month',
    'previous 2 quarters',
    'between 1-11-2026 and 15-11-2026',
    'between 3 months ago and 2 months ago',
    'between last month and today',
    'between 3 days ago and 1 day ago',
    'from 1-10-2026',
    'from 3 months ago',
    'to yesterday',
    'to 1 day ago',
    'from previous week to today',
  ])('never changes the strict result for %j', (input) => {
    expect(parseDateRange(input, { now: NOW, lenient: true })).toStrictEqual(
      parseDateRange(input, { now: NOW }),
    );
  });

  it.each([
    ['last 3 months please', 'unexpected-token', 14],
    ['3 months ago', 'unexpected-token', 0],
    ['march', 'unexpected-token', 0],
    ['between today and yesterday', 'reversed-range', 8],
    ['between March 10, 2024 and March 5, 2024', 'reversed-range', 8],
    ['last 0 days', 'invalid-count', 5],
    ['31-02-2024', 'invalid-date', 0],
    ['29-02-2023', 'invalid-date', 0],
    ['', 'empty', 0],
  ])('still rejects %j with the strict error', (input, code, position) => {
    let error: unknown;
    try {
      parseDateRange(input, { now: NOW, lenient: true });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(DateRangeError);
    expect((error as DateRangeError).code).toBe(code);
    expect((error as DateRangeError).position).toBe(position);
  });
});
