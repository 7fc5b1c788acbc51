import { describe, expect, it } from 'vitest';
import { DateRangeError, type DateRangeErrorCode } from './errors.js';
import { parseDateRange } from './parse-date-range.js';
import type { ParseDateRangeOptions } from './types.js';

const NOW = '2026-11-22T15:30:00';

function failure(input: string, options: ParseDateRangeOptions = { now: NOW }): DateRangeError {
  try {
    parseDateRange(input, options);
  } catch (error) {
    expect(error).toBeInstanceOf(DateRangeError);
    expect(error).toBeInstanceOf(Error);
    return error as DateRangeError;
  }
  throw new Error(`expected ${JSON.stringify(input)} to be rejected`);
}

/** [input, code, position, token] */
const ROWS: readonly (readonly [string, DateRangeErrorCode, number, string])[] = [
  ['', 'empty', 0, ''],
  ['   \t\n', 'empty', 0, ''],

  ['foo', 'unexpected-token', 0, 'foo'],
  ['last 3 months please', 'unexpected-token', 14, 'please'],
  ['last 3 months foo', 'unexpected-token', 14, 'foo'],
  ['today today', 'unexpected-token', 6, 'today'],
  ['last 3 fortnights', 'unexpected-token', 7, 'fortnights'],
  ['last month ago', 'unexpected-token', 11, 'ago'],
  ['last 3.5 months', 'unexpected-token', 6, '.'],
  ['last +3 days', 'unexpected-token', 5, '+'],
  ['next week', 'unexpected-token', 0, 'next'],
  ['between today or yesterday', 'unexpected-token', 14, 'or'],
  ['between 3 months and today', 'unexpected-token', 17, 'and'],
  ['between this and today', 'unexpected-token', 13, 'and'],
  ['from today until 1-12-2026', 'unexpected-token', 11, 'until'],
  ['from and today', 'unexpected-token', 5, 'and'],
  ['to to today', 'unexpected-token', 3, 'to'],
  ['3 months ago', 'unexpected-token', 0, '3 months ago'],
  ['month ago', 'unexpected-token', 0, 'month ago'],
  ['  2 weeks', 'unexpected-token', 2, '2 weeks'],
  ['22 foo 2026', 'unexpected-token', 3, 'foo'],
  ['22-11-2026!', 'unexpected-token', 10, '!'],
  ['22 nov 2026 ago', 'unexpected-token', 12, 'ago'],
  ['between 😀 and today', 'unexpected-token', 8, '😀'],

  ['last', 'unexpected-end', 4, ''],
  ['last 3', 'unexpected-end', 6, ''],
  ['previous 2  ', 'unexpected-end', 12, ''],
  ['between today', 'unexpected-end', 13, ''],
  ['between today and', 'unexpected-end', 17, ''],
  ['between 3 months ago', 'unexpected-end', 20, ''],
  ['between 3 months', 'unexpected-end', 16, ''],
  ['from', 'unexpected-end', 4, ''],
  ['from today to', 'unexpected-end', 13, ''],
  ['to', 'unexpected-end', 2, ''],
  ['22-11', 'unexpected-end', 5, ''],
  ['22', 'unexpected-end', 2, ''],

  ['31-02-2024', 'invalid-date', 0, '31-02-2024'],
  ['29-02-2023', 'invalid-date', 0, '29-02-2023'],
  ['31 april 2026', 'invalid-date', 0, '31 april 2026'],
  ['0-11-2026', 'invalid-date', 0, '0-11-2026'],
  ['22-13-2026', 'invalid-date', 3, '13'],
  ['22-00-2026', 'invalid-date', 3, '00'],
  ['22-011-2026', 'invalid-date', 3, '011'],
  ['22-11-26', 'invalid-date', 6, '26'],
  ['22-11-0000', 'invalid-date', 6, '0000'],
  ['2026-11-22', 'invalid-date', 0, '2026'],
  ['between 1-1-2026 and 32-1-2026', 'invalid-date', 21, '32-1-2026'],

  ['between today and yesterday', 'reversed-range', 8, 'today and yesterday'],
  ['from 22-11-2026 to 21-11-2026', 'reversed-range', 5, '22-11-2026 to 21-11-2026'],
  ['between this month and previous month', 'reversed-range', 8, 'this month and previous month'],
  ['between 2 months ago and 3 months ago', 'reversed-range', 8, '2 months ago and 3 months ago'],
  // The exclusive upper bound of "1 day ago" ends the day before yesterday: nothing is left.
  ['between 1 day ago and 1 day ago', 'reversed-range', 8, '1 day ago and 1 day ago'],

  ['last 0 days', 'invalid-count', 5, '0'],
  ['last -3 days', 'invalid-count', 5, '-3'],
  ['this -1 week', 'invalid-count', 5, '-1'],
  ['previous 00 months', 'invalid-count', 9, '00'],
  ['between 0 days ago and today', 'invalid-count', 8, '0'],
  ['between -2 days ago and today', 'invalid-count', 8, '-2'],
  ['to -1 month ago', 'invalid-count', 3, '-1'],

  ['last 3000 years', 'out-of-range', 0, 'last 3000 years'],
  ['previous 99999999999 days', 'out-of-range', 0, 'previous 99999999999 days'],
  ['from 8000 years ago', 'out-of-range', 5, '8000 years ago'],
];

describe('DateRangeError', () => {
  it.each(ROWS)('%j -> %s at %i (%j)', (input, code, position, token) => {
    const error = failure(input);
    expect({
      code: error.code,
      position: error.position,
      token: error.token,
      input: error.input,
    }).toStrictEqual({
      code,
      position,
      token,
      input,
    });
    expect(error.name).toBe('DateRangeError');
    if (token !== '') expect(input.slice(position, position + token.length)).toBe(token);
  });

  it.each([
    ['last 3 months foo', 'Unexpected "foo" at position 14 in "last 3 months foo": expected end of input'],
    [
      'last 3',
      'Unexpected end of input at position 6 in "last 3": expected a unit (days, weeks, months, quarters, years)',
    ],
    ['between today', 'Unexpected end of input at position 13 in "between today": expected "and"'],
    [
      'from today until x',
      'Unexpected "until" at position 11 in "from today until x": expected "to" or end of input',
    ],
    ['31-02-2024', 'Invalid date "31-02-2024" at position 0 in "31-02-2024": February 2024 has 29 days'],
    ['22-13-2026', 'Invalid month "13" at position 3 in "22-13-2026": expected a month of 1-12'],
    ['last 0 days', 'Invalid count "0" at position 5 in "last 0 days": expected a positive whole number'],
    [
      'between today and yesterday',
      'Reversed range "today and yesterday" at position 8 in "between today and yesterday": "today" starts on 2026-11-22, after "yesterday" ends on 2026-11-21',
    ],
    [
      '',
      'Empty input at position 0 in "": expected a date (e.g. 22-11-2026), "today", "yesterday", "this", "last", "previous", "between", "from" or "to"',
    ],
    [
      '3 months ago',
      'Unexpected "3 months ago" at position 0 in "3 months ago": expected a date, "today", "yesterday", "this", "last" or "previous" ("<N> <units> ago" is only allowed after "between", "from" or "to")',
    ],
  ])('message for %j', (input, message) => {
    expect(failure(input).message).toBe(message);
  });

  describe('options', () => {
    it('rejects an unknown time zone, even with a naive now', () => {
      for (const now of [NOW, new Date('2026-11-22T10:00:00Z'), undefined]) {
        const error = failure('today', { now, timeZone: 'Mars/Olympus_Mons' } as ParseDateRangeOptions);
        expect(error.code).toBe('invalid-time-zone');
        expect(error.token).toBe('Mars/Olympus_Mons');
        expect(error.position).toBe(0);
        expect(error.input).toBe('today');
        expect(error.message).toBe(
          'Invalid time zone "Mars/Olympus_Mons": expected an IANA time zone such as "Europe/Berlin"',
        );
      }
    });

    it.each([['yesterday-ish'], ['2026-02-30'], ['2026-11-22T24:00:00'], ['22-11-2026']])(
      'rejects now = %j',
      (now) => {
        const error = failure('today', { now });
        expect(error.code).toBe('invalid-now');
        expect(error.token).toBe(now);
        expect(error.position).toBe(0);
      },
    );

    it('rejects an invalid Date as now', () => {
      expect(failure('today', { now: new Date(Number.NaN) }).code).toBe('invalid-now');
    });

    it('checks options before the input', () => {
      expect(failure('???', { now: NOW, timeZone: 'Nowhere/Else' }).code).toBe('invalid-time-zone');
    });
  });
});
