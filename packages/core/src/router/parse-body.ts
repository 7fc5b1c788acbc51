import type { z } from 'zod';
import { BadRequestError } from '../errors/errors.js';
import { dataRequest, validateRequest } from '../protocol/index.js';
import { describeIssue } from '../startup/describe-issue.js';
import { isPlainDataRequest, isPlainValidateRequest } from './plain-body.js';

/** Bodies that plainly fit these schemas are taken as they are (see plain-body.ts). */
const directChecks = new Map<z.ZodType, (body: Record<string, unknown>) => boolean>([
  [dataRequest, isPlainDataRequest],
  [validateRequest, isPlainValidateRequest],
]);

/** Validates a request body; a 400 `{message}` naming the first wrong field otherwise. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new BadRequestError('The request body must be a JSON object');
  }
  if (directChecks.get(schema)?.(body as Record<string, unknown>)) return body as z.infer<S>;
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues;
  const more =
    issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? 's' : ''})` : '';
  throw new BadRequestError(`Invalid request: ${describeIssue(issues[0]!)}${more}`);
}
