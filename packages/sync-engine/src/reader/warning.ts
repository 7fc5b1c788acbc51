/**
 * What the reader took although the spec's tables would not have, or left out because it could
 * not make sense of it. The user sees these (the host keeps them on the sync run; the kit shows
 * them in its report).
 */
export interface ReaderWarning {
  /** where in the answer, e.g. `schema.issue.assignee` or `descriptor.authentication.token` */
  where: string;
  message: string;
  /**
   * The part named by `where` was left out (a field, a relation, an option): the service would not
   * sync it as the app meant. Without it the answer was taken as it was meant.
   */
  dropped?: boolean;
}

/** An answer as the service reads it: the value, or why it cannot be used; warnings either way. */
export type ReadResult<T> =
  | { ok: true; value: T; warnings: ReaderWarning[] }
  | { ok: false; problem: string; warnings: ReaderWarning[] };

/** One line for a person: `where: message`. */
export function formatWarning(w: ReaderWarning): string {
  return `${w.where}: ${w.message}`;
}

// Lenient schemas report what they coerced through this collector rather than through zod issues
// (an issue would fail the parse). Parsing is synchronous, so one collector at a time is enough.
let active: { warnings: ReaderWarning[]; where: string } | undefined;

/** Runs `read` with a collector: every `warn` inside lands in the returned warnings, under `where`. */
export function collecting<T>(where: string, read: () => T): { value: T; warnings: ReaderWarning[] } {
  const outer = active;
  const mine = { warnings: [] as ReaderWarning[], where };
  active = mine;
  try {
    return { value: read(), warnings: mine.warnings };
  } finally {
    active = outer;
    outer?.warnings.push(...mine.warnings);
  }
}

/** A warning about `key` of the part being read (see `collecting`). */
export function warn(key: string, message: string, dropped = false): void {
  if (!active) return;
  const where = key ? `${active.where}.${key}` : active.where;
  active.warnings.push(dropped ? { where, message, dropped } : { where, message });
}

/** A read's outcome from what it returned: a value, or a problem in words. */
export function result<T>(value: T | string, warnings: ReaderWarning[]): ReadResult<T> {
  return typeof value === 'string' ? { ok: false, problem: value, warnings } : { ok: true, value, warnings };
}
