/**
 * Direct checks of the bodies every sync sends many times (`data`, `validate`), taken before
 * their zod schemas. Each accepts only bodies that plainly fit its schema, and only where the
 * schema would give back the same values (zod copies objects and drops a `__proto__` key; the
 * handlers then get the body itself). Anything else goes to the schema, whose verdict and
 * message are final, so a direct check can make a request cheaper but never change its answer.
 */

/** An object as `JSON.parse` makes it, without a `__proto__` key (which zod's copy drops). */
export function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    Object.getPrototypeOf(value) === Object.prototype &&
    !Object.hasOwn(value, '__proto__')
  );
}

const isNonEmptyString = (value: unknown): boolean => typeof value === 'string' && value.length > 0;

const nullishRecord = (value: unknown): boolean =>
  value === undefined || value === null || isPlainRecord(value);

function nullishNamesArray(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i += 1) if (!isNonEmptyString(value[i])) return false;
  return true;
}

/** Fits `dataRequest` as it is. */
export function isPlainDataRequest(body: Record<string, unknown>): boolean {
  const at = body.lastSynchronizedAt;
  const operationId = body.operationId;
  return (
    isPlainRecord(body) &&
    isNonEmptyString(body.requestedType) &&
    nullishNamesArray(body.types) &&
    nullishRecord(body.filter) &&
    nullishRecord(body.account) &&
    nullishRecord(body.pagination) &&
    (at === undefined ||
      at === null ||
      isNonEmptyString(at) ||
      (typeof at === 'number' && Number.isFinite(at))) &&
    (operationId === undefined || operationId === null || typeof operationId === 'string')
  );
}

/** Fits `validateRequest` as it is (`fields` given: the schema fills in a missing one). */
export function isPlainValidateRequest(body: Record<string, unknown>): boolean {
  return isPlainRecord(body) && isNonEmptyString(body.id) && isPlainRecord(body.fields);
}
