// COPY's text format: one line per row, values separated by tabs, \N for null. A backslash,
// tab, newline or carriage return inside a value must be written as an escape, else the server
// would read it as the end of a value or row.

const SPECIAL = /[\\\t\n\r]/;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/**
 * One value as COPY text: null as \N, strings escaped, numbers and booleans as JavaScript prints
 * them (which the server reads back as the same bigint, numeric or boolean).
 */
export function copyValue(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value !== 'string') return String(value);
  return SPECIAL.test(value) ? value.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]!) : value;
}
