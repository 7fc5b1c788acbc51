import { AppCallError } from './app-call-error.js';

// How much of an app's answer the service side reads. An app is a third party: a 700 MB
// `/validate` answer or a schema of 5,000 fields must cost a bounded amount of memory and time,
// and fail once (an answer that is too large or too big a schema will be so again: never retried).

/** Largest answer body of a call, in bytes, unless the client is told otherwise (4 MiB). */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
/** Largest answer body of a data page, in bytes (64 MiB): pages carry thousands of rows. */
export const MAX_DATA_ANSWER_BYTES = 64 * 1024 * 1024;
/** Types in one schema answer, at most. */
export const MAX_SCHEMA_TYPES = 200;
/** Fields of one type in a schema answer, at most (a Postgres table holds at most 1,600 columns). */
export const MAX_FIELDS_PER_TYPE = 500;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Refuses a schema answer with more types or fields than the limits, before anything reads it
 * further: an AppCallError that is not retryable. Counts only; the answer's shape is the
 * schema parser's business.
 */
export function checkSchemaSize(
  path: string,
  answer: unknown,
  limits: { types?: number; fieldsPerType?: number } = {},
): void {
  if (!isObject(answer)) return;
  const maxTypes = limits.types ?? MAX_SCHEMA_TYPES;
  const maxFields = limits.fieldsPerType ?? MAX_FIELDS_PER_TYPE;
  let types = 0;
  for (const key in answer) {
    types++;
    if (types > maxTypes)
      throw new AppCallError(`${path}: the schema has more than ${maxTypes} types`, { path, status: 200 });
    const fields = answer[key];
    if (!isObject(fields)) continue;
    let count = 0;
    for (const _ in fields) {
      if (++count > maxFields)
        throw new AppCallError(`${path}: a type of the schema has more than ${maxFields} fields`, {
          path,
          status: 200,
        });
    }
  }
}
