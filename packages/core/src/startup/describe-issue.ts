import type { z } from 'zod';

/**
 * A zod issue as one short sentence naming the field: `"requestedType" is required`,
 * `"limit" must be number`. Never includes the value, which may be a secret.
 */
export function describeIssue(issue: z.core.$ZodIssue, subject = ''): string {
  const path = issue.path.map(String).join('.');
  const name = `${subject}${path ? `"${path}"` : 'the value'}`;
  if (issue.code === 'invalid_type') {
    return issue.message.endsWith('received undefined')
      ? `${name} is required`
      : `${name} must be ${issue.expected}`;
  }
  if (issue.code === 'too_small' && issue.origin === 'string') return `${name} must not be empty`;
  return `${name}: ${issue.message}`;
}
