export type { DateRangeErrorCode } from './errors.js';
export { DateRangeError } from './errors.js';
export type { DateRangeKeyword, DateRangeUnit } from './keywords.js';
export { DATE_RANGE_KEYWORDS, DATE_RANGE_UNITS } from './keywords.js';
export { parseDateRange } from './parse-date-range.js';
export { suggestDateRange } from './suggest.js';
export type { DateRange, ParseDateRangeOptions } from './types.js';
