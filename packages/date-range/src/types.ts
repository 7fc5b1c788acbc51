/**
 * A parsed date range. Values are timezone-naive ISO 8601 strings: `_min` is the start of the first
 * day (`YYYY-MM-DDT00:00:00.000`), `_max` the end of the last day (`YYYY-MM-DDT23:59:59.999`).
 * An open bound's key is absent, not `undefined`.
 */
export interface DateRange {
  _min?: string;
  _max?: string;
}

/** Options of `parseDateRange`. */
export interface ParseDateRangeOptions {
  /**
   * The moment the phrase is relative to. A timezone-naive ISO string (`2026-11-22T15:30:00` or
   * `2026-11-22`) is taken as wall-clock time as it is; a string with `Z` or an offset, or a Date,
   * is an instant whose calendar day is read in `timeZone` (or the local zone). Default: now.
   */
  now?: Date | string;
  /** IANA time zone (e.g. `Europe/Berlin`) that decides which calendar day an instant `now` falls on. */
  timeZone?: string;
  /**
   * When the strict grammar rejects the input, retry literal dates with chrono-node's casual
   * parser (`March 5, 2024`, `2024-03-05`). Never changes results the strict grammar accepts.
   */
  lenient?: boolean;
}
