import { afterEach, describe, expect, it } from 'vitest';
import { parseDateRange } from './parse-date-range.js';

/** [input, expected _min (null = key absent), expected _max (null = key absent)] */
type Row = readonly [input: string, min: string | null, max: string | null];

function expected(min: string | null, max: string | null): Record<string, string> {
  const range: Record<string, string> = {};
  if (min !== null) range._min = min;
  if (max !== null) range._max = max;
  return range;
}

function check(rows: readonly Row[], now: string) {
  it.each(rows)('%s', (input, min, max) => {
    const range = parseDateRange(input, { now });
    expect(range).toStrictEqual(expected(min, max));
    expect('_min' in range).toBe(min !== null);
    expect('_max' in range).toBe(max !== null);
  });
}

// 2026-11-22 is a Sunday: ISO week 2026-11-16..2026-11-22, Q4 2026-10-01..2026-12-31.
const NOW = '2026-11-22T15:30:00';

describe('now = 2026-11-22 (Sunday)', () => {
  describe('single days', () => {
    check(
      [
        ['today', '2026-11-22T00:00:00.000', '2026-11-22T23:59:59.999'],
        ['yesterday', '2026-11-21T00:00:00.000', '2026-11-21T23:59:59.999'],
        ['ToDay', '2026-11-22T00:00:00.000', '2026-11-22T23:59:59.999'],
        ['  \t yesterday \n', '2026-11-21T00:00:00.000', '2026-11-21T23:59:59.999'],
      ],
      NOW,
    );
  });

  describe('literal dates (day-month-year)', () => {
    check(
      [
        ['22-November-2026', '2026-11-22T00:00:00.000', '2026-11-22T23:59:59.999'],
        ['22 November 2026', '2026-11-22T00:00:00.000', '2026-11-22T23:59:59.999'],
        ['22-Nov-2026', '2026-11-22T00:00:00.000', '2026-11-22T23:59:59.999'],
        ['22 nov 2026', '2026-11-22T00:00:00.000', '2026-11-22T23:59:59.999'],
        ['22-NOV-2026', '2026-11-22T00:00:00.000', '2026-11-22T23:59:59.999'],
        ['22-11-2026', '2026-11-22T00:00:00.000', '2026-11-22T23:59:59.999'],
        ['22 11 2026', '2026-11-22T00:00:00.000', '2026-11-22T23:59:59.999'],
        ['05-03-2024', '2024-03-05T00:00:00.000', '2024-03-05T23:59:59.999'],
        ['5-3-2024', '2024-03-05T00:00:00.000', '2024-03-05T23:59:59.999'],
        ['1 jan 2027', '2027-01-01T00:00:00.000', '2027-01-01T23:59:59.999'],
        ['31 December 2026', '2026-12-31T00:00:00.000', '2026-12-31T23:59:59.999'],
        ['29-02-2024', '2024-02-29T00:00:00.000', '2024-02-29T23:59:59.999'],
        ['29 feb 2000', '2000-02-29T00:00:00.000', '2000-02-29T23:59:59.999'],
        ['30 sep 2026', '2026-09-30T00:00:00.000', '2026-09-30T23:59:59.999'],
        ['1 - 5 - 2026', '2026-05-01T00:00:00.000', '2026-05-01T23:59:59.999'],
        ['15 jun 0099', '0099-06-15T00:00:00.000', '0099-06-15T23:59:59.999'],
      ],
      NOW,
    );
  });

  describe('this|last <unit> = the current whole period', () => {
    check(
      [
        ['this day', '2026-11-22T00:00:00.000', '2026-11-22T23:59:59.999'],
        ['last day', '2026-11-22T00:00:00.000', '2026-11-22T23:59:59.999'],
        ['this week', '2026-11-16T00:00:00.000', '2026-11-22T23:59:59.999'],
        ['last week', '2026-11-16T00:00:00.000', '2026-11-22T23:59:59.999'],
        ['this month', '2026-11-01T00:00:00.000', '2026-11-30T23:59:59.999'],
        ['last month', '2026-11-01T00:00:00.000', '2026-11-30T23:59:59.999'],
        ['this quarter', '2026-10-01T00:00:00.000', '2026-12-31T23:59:59.999'],
        ['last quarter', '2026-10-01T00:00:00.000', '2026-12-31T23:59:59.999'],
        ['this year', '2026-01-01T00:00:00.000', '2026-12-31T23:59:59.999'],
        ['last year', '2026-01-01T00:00:00.000', '2026-12-31T23:59:59.999'],
        ['LAST Month', '2026-11-01T00:00:00.000', '2026-11-30T23:59:59.999'],
      ],
      NOW,
    );
  });

  describe('this|last N <units> = N whole periods ending with the current one', () => {
    check(
      [
        ['last 1 day', '2026-11-22T00:00:00.000', '2026-11-22T23:59:59.999'],
        ['last 3 days', '2026-11-20T00:00:00.000', '2026-11-22T23:59:59.999'],
        ['this 3 days', '2026-11-20T00:00:00.000', '2026-11-22T23:59:59.999'],
        ['last 2 weeks', '2026-11-09T00:00:00.000', '2026-11-22T23:59:59.999'],
        ['last 1 month', '2026-11-01T00:00:00.000', '2026-11-30T23:59:59.999'],
        ['last 3 months', '2026-09-01T00:00:00.000', '2026-11-30T23:59:59.999'],
        ['last 12 months', '2025-12-01T00:00:00.000', '2026-11-30T23:59:59.999'],
        ['last 2 quarters', '2026-07-01T00:00:00.000', '2026-12-31T23:59:59.999'],
        ['last 5 quarters', '2025-10-01T00:00:00.000', '2026-12-31T23:59:59.999'],
        ['last 2 years', '2025-01-01T00:00:00.000', '2026-12-31T23:59:59.999'],
        ['last 03 days', '2026-11-20T00:00:00.000', '2026-11-22T23:59:59.999'],
        ['  LAST   3\tMonths  ', '2026-09-01T00:00:00.000', '2026-11-30T23:59:59.999'],
      ],
      NOW,
    );
  });

  describe('previous [N] <unit(s)> = whole periods before the current one', () => {
    check(
      [
        ['previous day', '2026-11-21T00:00:00.000', '2026-11-21T23:59:59.999'],
        ['previous week', '2026-11-09T00:00:00.000', '2026-11-15T23:59:59.999'],
        ['previous month', '2026-10-01T00:00:00.000', '2026-10-31T23:59:59.999'],
        ['previous quarter', '2026-07-01T00:00:00.000', '2026-09-30T23:59:59.999'],
        ['previous year', '2025-01-01T00:00:00.000', '2025-12-31T23:59:59.999'],
        ['previous 3 days', '2026-11-19T00:00:00.000', '2026-11-21T23:59:59.999'],
        ['previous 2 weeks', '2026-11-02T00:00:00.000', '2026-11-15T23:59:59.999'],
        ['previous 2 months', '2026-09-01T00:00:00.000', '2026-10-31T23:59:59.999'],
        ['previous 2 quarters', '2026-04-01T00:00:00.000', '2026-09-30T23:59:59.999'],
        ['previous 2 years', '2024-01-01T00:00:00.000', '2025-12-31T23:59:59.999'],
        ['previous 1 months', '2026-10-01T00:00:00.000', '2026-10-31T23:59:59.999'],
      ],
      NOW,
    );
  });

  describe('between A and B, every operand kind', () => {
    check(
      [
        ['between 1-11-2026 and 15-11-2026', '2026-11-01T00:00:00.000', '2026-11-15T23:59:59.999'],
        ['between 1 nov 2026 and 15 November 2026', '2026-11-01T00:00:00.000', '2026-11-15T23:59:59.999'],
        ['between today and today', '2026-11-22T00:00:00.000', '2026-11-22T23:59:59.999'],
        ['between yesterday and today', '2026-11-21T00:00:00.000', '2026-11-22T23:59:59.999'],
        ['between 1-1-2026 and yesterday', '2026-01-01T00:00:00.000', '2026-11-21T23:59:59.999'],
        ['between last month and today', '2026-11-01T00:00:00.000', '2026-11-22T23:59:59.999'],
        ['between this week and this week', '2026-11-16T00:00:00.000', '2026-11-22T23:59:59.999'],
        ['between previous month and this month', '2026-10-01T00:00:00.000', '2026-11-30T23:59:59.999'],
        ['between last 2 weeks and yesterday', '2026-11-09T00:00:00.000', '2026-11-21T23:59:59.999'],
        [
          'between previous 2 quarters and previous quarter',
          '2026-04-01T00:00:00.000',
          '2026-09-30T23:59:59.999',
        ],
        ['between previous year and last 3 months', '2025-01-01T00:00:00.000', '2026-11-30T23:59:59.999'],
        ['BETWEEN Today AND Today', '2026-11-22T00:00:00.000', '2026-11-22T23:59:59.999'],
      ],
      NOW,
    );
  });

  describe('[N] <units> ago: lower bound = start of that period, upper bound = exclusive', () => {
    check(
      [
        ['between 3 months ago and 2 months ago', '2026-08-01T00:00:00.000', '2026-08-31T23:59:59.999'],
        ['between month ago and today', '2026-10-01T00:00:00.000', '2026-11-22T23:59:59.999'],
        ['between 1 month ago and today', '2026-10-01T00:00:00.000', '2026-11-22T23:59:59.999'],
        ['between 2 weeks ago and 1 week ago', '2026-11-02T00:00:00.000', '2026-11-08T23:59:59.999'],
        ['between 2 weeks ago and today', '2026-11-02T00:00:00.000', '2026-11-22T23:59:59.999'],
        ['between 2 weeks ago and week ago', '2026-11-02T00:00:00.000', '2026-11-08T23:59:59.999'],
        ['between 3 days ago and 1 day ago', '2026-11-19T00:00:00.000', '2026-11-20T23:59:59.999'],
        ['between 2 days ago and day ago', '2026-11-20T00:00:00.000', '2026-11-20T23:59:59.999'],
        ['between 2 quarters ago and today', '2026-04-01T00:00:00.000', '2026-11-22T23:59:59.999'],
        ['between quarter ago and 22-11-2026', '2026-07-01T00:00:00.000', '2026-11-22T23:59:59.999'],
        ['between 2 years ago and year ago', '2024-01-01T00:00:00.000', '2024-12-31T23:59:59.999'],
        ['between 2 years ago and 1 years ago', '2024-01-01T00:00:00.000', '2024-12-31T23:59:59.999'],
        ['between 22-11-2025 and 1 day ago', '2025-11-22T00:00:00.000', '2026-11-20T23:59:59.999'],
        ['between last year and 1 month ago', '2026-01-01T00:00:00.000', '2026-09-30T23:59:59.999'],
        ['between 3 MONTHS Ago and 2 months AGO', '2026-08-01T00:00:00.000', '2026-08-31T23:59:59.999'],
      ],
      NOW,
    );
  });

  describe('from A / to B / from A to B', () => {
    check(
      [
        ['from 1-10-2026', '2026-10-01T00:00:00.000', null],
        ['from today', '2026-11-22T00:00:00.000', null],
        ['from yesterday', '2026-11-21T00:00:00.000', null],
        ['from last week', '2026-11-16T00:00:00.000', null],
        ['from last 3 months', '2026-09-01T00:00:00.000', null],
        ['from previous 2 months', '2026-09-01T00:00:00.000', null],
        ['from 3 months ago', '2026-08-01T00:00:00.000', null],
        ['to yesterday', null, '2026-11-21T23:59:59.999'],
        ['to today', null, '2026-11-22T23:59:59.999'],
        ['to 22-12-2026', null, '2026-12-22T23:59:59.999'],
        ['to this month', null, '2026-11-30T23:59:59.999'],
        ['to previous week', null, '2026-11-15T23:59:59.999'],
        ['to 1 day ago', null, '2026-11-20T23:59:59.999'],
        ['to month ago', null, '2026-09-30T23:59:59.999'],
        ['from 1-10-2026 to today', '2026-10-01T00:00:00.000', '2026-11-22T23:59:59.999'],
        ['from previous week to this week', '2026-11-09T00:00:00.000', '2026-11-22T23:59:59.999'],
        ['from 2 months ago to month ago', '2026-09-01T00:00:00.000', '2026-09-30T23:59:59.999'],
        ['from yesterday to last 3 days', '2026-11-21T00:00:00.000', '2026-11-22T23:59:59.999'],
        ['from 22 nov 2026 to 22 nov 2026', '2026-11-22T00:00:00.000', '2026-11-22T23:59:59.999'],
      ],
      NOW,
    );
  });

  it('accepts a plain date as now', () => {
    expect(parseDateRange('last week', { now: '2026-11-22' })).toStrictEqual({
      _min: '2026-11-16T00:00:00.000',
      _max: '2026-11-22T23:59:59.999',
    });
  });
});

describe('ISO weeks across a year boundary', () => {
  describe('now = 2027-01-01 (Friday)', () => {
    check(
      [
        ['last week', '2026-12-28T00:00:00.000', '2027-01-03T23:59:59.999'],
        ['this week', '2026-12-28T00:00:00.000', '2027-01-03T23:59:59.999'],
        ['previous week', '2026-12-21T00:00:00.000', '2026-12-27T23:59:59.999'],
        ['last 2 weeks', '2026-12-21T00:00:00.000', '2027-01-03T23:59:59.999'],
        ['between 1 week ago and today', '2026-12-21T00:00:00.000', '2027-01-01T23:59:59.999'],
        ['yesterday', '2026-12-31T00:00:00.000', '2026-12-31T23:59:59.999'],
        ['last 3 days', '2026-12-30T00:00:00.000', '2027-01-01T23:59:59.999'],
        ['previous day', '2026-12-31T00:00:00.000', '2026-12-31T23:59:59.999'],
        ['previous quarter', '2026-10-01T00:00:00.000', '2026-12-31T23:59:59.999'],
        ['last year', '2027-01-01T00:00:00.000', '2027-12-31T23:59:59.999'],
      ],
      '2027-01-01T09:00:00',
    );
  });

  describe('now = 2026-12-31 (Thursday)', () => {
    check([['last week', '2026-12-28T00:00:00.000', '2027-01-03T23:59:59.999']], '2026-12-31T23:59:59');
  });
});

describe('leap years', () => {
  describe('now = 2024-02-29 (Thursday)', () => {
    check(
      [
        ['today', '2024-02-29T00:00:00.000', '2024-02-29T23:59:59.999'],
        ['last year', '2024-01-01T00:00:00.000', '2024-12-31T23:59:59.999'],
        ['last month', '2024-02-01T00:00:00.000', '2024-02-29T23:59:59.999'],
        ['last 2 months', '2024-01-01T00:00:00.000', '2024-02-29T23:59:59.999'],
        ['previous year', '2023-01-01T00:00:00.000', '2023-12-31T23:59:59.999'],
        ['between 1 year ago and today', '2023-01-01T00:00:00.000', '2024-02-29T23:59:59.999'],
        ['between 1 month ago and today', '2024-01-01T00:00:00.000', '2024-02-29T23:59:59.999'],
      ],
      '2024-02-29T12:00:00',
    );
  });
});

describe('month ends', () => {
  describe('now = 2026-01-31', () => {
    check(
      [
        ['previous month', '2025-12-01T00:00:00.000', '2025-12-31T23:59:59.999'],
        ['between 1 month ago and today', '2025-12-01T00:00:00.000', '2026-01-31T23:59:59.999'],
        ['last 2 months', '2025-12-01T00:00:00.000', '2026-01-31T23:59:59.999'],
        ['previous 2 months', '2025-11-01T00:00:00.000', '2025-12-31T23:59:59.999'],
        ['between 2 months ago and 1 month ago', '2025-11-01T00:00:00.000', '2025-11-30T23:59:59.999'],
      ],
      '2026-01-31T08:00:00',
    );
  });

  describe('now = 2026-03-31', () => {
    check(
      [
        ['previous month', '2026-02-01T00:00:00.000', '2026-02-28T23:59:59.999'],
        ['between 1 month ago and today', '2026-02-01T00:00:00.000', '2026-03-31T23:59:59.999'],
        ['previous quarter', '2025-10-01T00:00:00.000', '2025-12-31T23:59:59.999'],
      ],
      '2026-03-31T08:00:00',
    );
  });
});

describe('timeZone option', () => {
  const late = new Date('2026-11-22T23:30:00Z');

  it.each([
    ['Europe/Berlin', '2026-11-23T00:00:00.000', '2026-11-23T23:59:59.999'],
    ['America/New_York', '2026-11-22T00:00:00.000', '2026-11-22T23:59:59.999'],
    ['UTC', '2026-11-22T00:00:00.000', '2026-11-22T23:59:59.999'],
    ['Asia/Tokyo', '2026-11-23T00:00:00.000', '2026-11-23T23:59:59.999'],
  ])('now = 2026-11-22T23:30:00Z in %s', (timeZone, min, max) => {
    expect(parseDateRange('today', { now: late, timeZone })).toStrictEqual({ _min: min, _max: max });
  });

  it('takes a naive now string as wall-clock time, whatever the zone', () => {
    expect(parseDateRange('today', { now: '2026-11-22T23:30:00', timeZone: 'Asia/Tokyo' })).toStrictEqual({
      _min: '2026-11-22T00:00:00.000',
      _max: '2026-11-22T23:59:59.999',
    });
  });

  it('reads a now string with Z as an instant in the zone', () => {
    expect(parseDateRange('today', { now: '2026-11-22T23:30:00Z', timeZone: 'Europe/Berlin' })).toStrictEqual(
      {
        _min: '2026-11-23T00:00:00.000',
        _max: '2026-11-23T23:59:59.999',
      },
    );
  });

  it('finds the day right after a DST change (Berlin, 2026-10-25)', () => {
    const now = new Date('2026-10-24T22:30:00Z'); // 00:30 CEST on the 25th
    expect(parseDateRange('last week', { now, timeZone: 'Europe/Berlin' })).toStrictEqual({
      _min: '2026-10-19T00:00:00.000',
      _max: '2026-10-25T23:59:59.999',
    });
  });
});

describe('process time zone does not move day boundaries', () => {
  const original = process.env.TZ;
  afterEach(() => {
    // Assigning undefined would leave the text "undefined" for the files after this one.
    if (original === undefined) delete process.env.TZ;
    else process.env.TZ = original;
  });

  // Santiago skips local midnight when DST starts (2026-09-06 00:00 -> 01:00).
  it.each(['America/Santiago', 'Pacific/Kiritimati', 'America/Los_Angeles'])('TZ=%s', (zone) => {
    process.env.TZ = zone;
    const now = '2026-09-06T00:30:00';
    expect(parseDateRange('today', { now })).toStrictEqual({
      _min: '2026-09-06T00:00:00.000',
      _max: '2026-09-06T23:59:59.999',
    });
    expect(parseDateRange('last week', { now })).toStrictEqual({
      _min: '2026-08-31T00:00:00.000',
      _max: '2026-09-06T23:59:59.999',
    });
    expect(parseDateRange('between 1-9-2026 and 7 sep 2026', { now })).toStrictEqual({
      _min: '2026-09-01T00:00:00.000',
      _max: '2026-09-07T23:59:59.999',
    });
    expect(parseDateRange('previous 2 days', { now })).toStrictEqual({
      _min: '2026-09-04T00:00:00.000',
      _max: '2026-09-05T23:59:59.999',
    });
  });
});

describe('default now', () => {
  it('uses the current local day', () => {
    const before = new Date();
    const range = parseDateRange('today');
    const after = new Date();
    const days = [before, after].map(
      (date) =>
        `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}T00:00:00.000`,
    );
    expect(days).toContain(range._min);
  });
});
