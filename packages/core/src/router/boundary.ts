import { InvalidAccountError, InvalidFilterError } from '../errors/errors.js';
import type { CompiledApp } from '../startup/compile-app.js';
import { describeIssue } from '../startup/describe-issue.js';
import { isPlainRecord } from './plain-body.js';

/**
 * Checks an account against the app's authentications and returns it typed and normalized.
 * The service does not say which authentication an account uses (beyond an optional `auth`
 * system key), so an account is valid when it fits one of them. 401 otherwise.
 */
export function checkAccount(
  app: CompiledApp,
  account: Record<string, unknown> | null | undefined,
): Record<string, unknown> {
  const raw = account ?? {};
  const named = typeof raw.auth === 'string' ? app.auths.get(raw.auth) : undefined;
  const candidates = named ? [named] : [...app.auths.values()];
  let firstProblem: string | undefined;
  for (const candidate of candidates) {
    if (!candidate.accountSchema) return raw;
    const parsed = candidate.accountSchema.safeParse(raw);
    if (parsed.success) return parsed.data;
    firstProblem ??= describeIssue(parsed.error.issues[0]!, 'Account field ');
  }
  throw new InvalidAccountError(firstProblem ?? 'The account is not valid');
}

/** Checks a filter against the app's filter fields: 400 naming the filter otherwise. */
export function checkFilter(
  app: CompiledApp,
  filter: Record<string, unknown> | null | undefined,
): Record<string, unknown> {
  // Most apps have no filter fields, and their filter is `{}` on every page: nothing to check.
  if (app.openFilter && (filter === null || filter === undefined || isPlainRecord(filter)))
    return filter ?? {};
  const parsed = app.filterSchema.safeParse(filter ?? {});
  if (parsed.success) return parsed.data;
  throw new InvalidFilterError(describeIssue(parsed.error.issues[0]!, 'Filter '));
}
