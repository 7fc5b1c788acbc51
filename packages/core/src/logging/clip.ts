/** Longest user-supplied value echoed in an error message. */
export const MAX_ECHO = 200;

/**
 * Shortens a value before it is echoed or logged, so a 9 MB field name cannot come back as a
 * 9 MB error or log line. The length says how much was cut.
 */
export function clip(value: unknown, max = MAX_ECHO): string {
  const text = typeof value === 'string' ? value : String(value);
  return text.length > max ? `${text.slice(0, max)}... (${text.length} characters)` : text;
}
