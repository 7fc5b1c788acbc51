import type { z } from 'zod';
import { BadRequestError } from '../errors/errors.js';
import { describeIssue } from '../startup/describe-issue.js';

/** Validates a request body; a 400 `{message}` naming the first wrong field otherwise. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new BadRequestError('The request body must be a JSON object');
  }
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues;
  const more =
    issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? 's' : ''})` : '';
  throw new BadRequestError(`Invalid request: ${describeIssue(issues[0]!)}${more}`);
}
