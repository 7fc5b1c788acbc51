import { describe, expect, expectTypeOf, it } from 'vitest';
import * as api from './index.js';
import {
  DATE_RANGE_KEYWORDS,
  DATE_RANGE_UNITS,
  type DateRange,
  DateRangeError,
  type DateRangeErrorCode,
  type ParseDateRangeOptions,
  parseDateRange,
  suggestDateRange,
} from './index.js';

describe('public API', () => {
  it('exports exactly the documented runtime values', () => {
    expect(Object.keys(api).sort()).toStrictEqual([
      'DATE_RANGE_KEYWORDS',
      'DATE_RANGE_UNITS',
      'DateRangeError',
      'parseDateRange',
      'suggestDateRange',
    ]);
    expect(DATE_RANGE_KEYWORDS).toContain('between');
    expect(DATE_RANGE_UNITS).toContain('quarter');
    expect(suggestDateRange('ye')).toStrictEqual(['yesterday']);
    expect(new DateRangeError('empty', 'm', '', 0, '')).toBeInstanceOf(Error);
  });

  it('has the documented types', () => {
    expectTypeOf(parseDateRange).parameters.toEqualTypeOf<[string, (ParseDateRangeOptions | undefined)?]>();
    expectTypeOf(parseDateRange).returns.toEqualTypeOf<DateRange>();
    expectTypeOf<DateRangeError['code']>().toEqualTypeOf<DateRangeErrorCode>();
    expectTypeOf<ParseDateRangeOptions['now']>().toEqualTypeOf<Date | string | undefined>();
  });
});
