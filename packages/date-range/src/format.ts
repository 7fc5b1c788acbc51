// Hand-rolled because date-fns `format` parses its pattern on every call, which dominated the
// profile; these strings are built from a lookup table and two concatenations.
const TWO_DIGITS: readonly string[] = Array.from({ length: 100 }, (_, n) => (n < 10 ? `0${n}` : `${n}`));

/**
 * `YYYY-MM-DD` of a Date's local calendar day, or `undefined` when the year is outside 0001..9999
 * (or the Date is invalid) and so has no 4-digit form. Such strings compare in calendar order.
 */
export function formatDay(date: Date): string | undefined {
  const year = date.getFullYear();
  if (!(year >= 1 && year <= 9999)) return undefined;
  const yyyy = year >= 1000 ? `${year}` : `${year}`.padStart(4, '0');
  return `${yyyy}-${TWO_DIGITS[date.getMonth() + 1]}-${TWO_DIGITS[date.getDate()]}`;
}

/** Timezone-naive start of a `YYYY-MM-DD` day. */
export function startOfDayString(day: string): string {
  return `${day}T00:00:00.000`;
}

/** Timezone-naive end of a `YYYY-MM-DD` day. */
export function endOfDayString(day: string): string {
  return `${day}T23:59:59.999`;
}
