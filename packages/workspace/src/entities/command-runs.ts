import { sqlState } from '../db/driver.js';
import { WorkspaceError } from '../errors.js';

// What runs of commands made together (update-entities.ts, delete-entities.ts,
// change-collections.ts) share, so that each answers and fails as its commands one at a time:
// every command checked in order, the ones before a bad one made before it is reported, and a
// failure named by its command's position in the run (the error's `index`).

/**
 * Checks a run's commands in order, up to the first that fails its check: the checked ones, and
 * that failure (with its position), to be reported once the checked ones are made.
 */
export function checkRun<T, C>(
  items: readonly T[],
  check: (item: T) => C,
): { checked: C[]; bad?: WorkspaceError } {
  const checked: C[] = [];
  for (const [i, item] of items.entries()) {
    try {
      checked.push(check(item));
    } catch (error) {
      if (!(error instanceof WorkspaceError)) throw error;
      error.index = i;
      return { checked, bad: error };
    }
  }
  return { checked };
}

/** Makes a run's commands one at a time, in order; a failure names its command's position. */
export async function oneAtATime<C, R>(checked: readonly C[], make: (c: C) => Promise<R>): Promise<R[]> {
  const answers: R[] = [];
  for (const [i, c] of checked.entries()) {
    try {
      answers.push(await make(c));
    } catch (error) {
      if (error instanceof WorkspaceError) error.index = i;
      throw error;
    }
  }
  return answers;
}

/**
 * A database error about a value a statement was given (a data exception, a constraint such as a
 * reference to an entity that does not exist): which command of a run made together it belongs to
 * is known only one at a time.
 */
export function refusedValue(error: unknown): boolean {
  const state = sqlState(error);
  return state !== undefined && (state.startsWith('22') || state.startsWith('23'));
}
