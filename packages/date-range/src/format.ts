// Hand-rolled because date-fns `format` parses its pattern on every call, which dominated the
// profile; these strings are built from a lookup table and two concatenations.
const TWO_DIGITS: readonly string[] = Array.from({ length: 100 }, (_, n) => (n < 10 ? `0${n}` : `${n}`));

/** `YYYY-MM-DD` of a Date's local calendar day. */
export function formatDay(date: Date): string {
  const year = date.getFullYear();
  const yyyy = year >= 1000 ? `${year}` : `${year}`.padStart(4, '0');
  return `${yyyy}-${TWO_DIGITS[date.getMonth() + 1]}-${TWO_DIGITS[date.getDate()]}`;
}

/** Timezone-naive start of the day: `YYYY-MM-DDT00:00:00.000`. */
export function formatStartOfDay(date: Date): string {
  return `${formatDay(date)}T00:00:00.000`;
}

/** Timezone-naive end of the day: `YYYY-MM-DDT23:59:59.999`. */
export function formatEndOfDay(date: Date): string {
  return `${formatDay(date)}T23:59:59.999`;
}
