/**
 * Why a date range was rejected.
 *
 * - `empty`: the input is empty or whitespace only.
 * - `unexpected-token`: a word or symbol the grammar does not allow at that place.
 * - `unexpected-end`: the input stops where more was expected.
 * - `invalid-date`: a literal date that does not exist (`31-02-2024`, month 13, 2-digit year).
 * - `reversed-range`: the lower bound starts after the upper bound ends.
 * - `invalid-count`: a count that is not a positive whole number (`last 0 days`, `last -3 days`).
 * - `out-of-range`: the range would leave the years 0001..9999 (`last 5000 years`).
 * - `invalid-time-zone`: `options.timeZone` is not an IANA time zone.
 * - `invalid-now`: `options.now` is not a valid date.
 */
export type DateRangeErrorCode =
  | 'empty'
  | 'unexpected-token'
  | 'unexpected-end'
  | 'invalid-date'
  | 'reversed-range'
  | 'invalid-count'
  | 'out-of-range'
  | 'invalid-time-zone'
  | 'invalid-now';

/**
 * Thrown by `parseDateRange` for any input or option it cannot turn into a range.
 *
 * For errors in the input, `position` is the 0-based offset of `token` in `input` (`token` is `''`
 * at the end of the input). For option errors (`invalid-time-zone`, `invalid-now`) `position` is 0
 * and `token` is the offending option value.
 */
export class DateRangeError extends Error {
  override readonly name = 'DateRangeError';
  /** The text that was parsed. */
  readonly input: string;
  /** 0-based character offset of `token` in `input`. */
  readonly position: number;
  /** The offending text; `''` at the end of the input. */
  readonly token: string;
  /** Machine-readable reason. */
  readonly code: DateRangeErrorCode;

  constructor(code: DateRangeErrorCode, message: string, input: string, position: number, token: string) {
    super(message);
    this.code = code;
    this.input = input;
    this.position = position;
    this.token = token;
  }
}

/** Quotes a string for messages, the way JSON would. */
export function quote(text: string): string {
  return JSON.stringify(text);
}

/** `Unexpected "x" at position N in "input": expected ...`, or the end-of-input variant. */
export function unexpected(input: string, position: number, token: string, expected: string): DateRangeError {
  if (token === '') {
    return new DateRangeError(
      'unexpected-end',
      `Unexpected end of input at position ${position} in ${quote(input)}: expected ${expected}`,
      input,
      position,
      '',
    );
  }
  return new DateRangeError(
    'unexpected-token',
    `Unexpected ${quote(token)} at position ${position} in ${quote(input)}: expected ${expected}`,
    input,
    position,
    token,
  );
}

/** An error about a span of the input, e.g. `Invalid date "31-02-2024" at position 0 in "...": why`. */
export function spanError(
  code: DateRangeErrorCode,
  what: string,
  input: string,
  position: number,
  token: string,
  why: string,
): DateRangeError {
  return new DateRangeError(
    code,
    `${what} ${quote(token)} at position ${position} in ${quote(input)}: ${why}`,
    input,
    position,
    token,
  );
}
