import { AppCallError, AppClient } from '@weft/sync-engine';

// Runs an external-action app's action as the service does: first the account is validated
// (POST /validate, "before any action that uses the account"), then POST <app>/api/v1/automations/
// action/execute with {action: {action, args}, account}. Success is a 2xx answer ({}); a failure
// is any other answer, whose `{message}` is what the run records; a refused account is recorded as
// such and the action is not run. The request body holds the account, so it never goes into an
// error or a log.

import { MAX_ANSWER_BYTES, readAnswerText } from '@weft/sync-engine';

export const EXECUTE_PATH = '/api/v1/automations/action/execute';

export type ActionOutcome = { ok: true; answer: unknown } | { ok: false; message: string; answer: unknown };

/**
 * Validates the account with the app: the authentication is the account's `auth` key, else the
 * app's first (an app whose authentication is `none` has no account to validate). Answers the
 * account as the app returned it (a refreshed token replaces the old one, as in a sync), or the
 * refusal to record.
 */
export async function validateActionAccount(
  appUrl: string,
  account: Record<string, unknown>,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<{ account: Record<string, unknown> } | { refused: { ok: false; message: string; answer: null } }> {
  const client = new AppClient(appUrl, { timeoutMs });
  try {
    const authId =
      typeof account.auth === 'string'
        ? account.auth
        : ((await client.descriptor(signal)).authentication[0]?.id ?? 'none');
    if (authId === 'none') return { account };
    const { name: _name, ...extra } = await client.validate(authId, account, signal);
    return { account: { ...account, ...extra } };
  } catch (error) {
    const refused = error instanceof AppCallError && error.status >= 400 && error.status < 500;
    const why =
      error instanceof AppCallError
        ? error.status === 0
          ? 'the app did not answer'
          : (error.appMessage ?? (error.status >= 300 ? `HTTP ${error.status}` : error.message))
        : 'the app could not be asked';
    const message = refused
      ? `The app refused the account (POST /validate): ${why}`
      : `The account could not be validated (POST /validate): ${why}`;
    return { refused: { ok: false, message, answer: null } };
  }
}

/** Validates the account, then runs the action with the account as the app returned it. */
export async function runAppAction(
  appUrl: string,
  action: string,
  args: Record<string, string>,
  given: Record<string, unknown>,
  timeoutMs = 60_000,
  signal?: AbortSignal,
): Promise<ActionOutcome> {
  const checked = await validateActionAccount(appUrl, given, timeoutMs, signal);
  if ('refused' in checked) return checked.refused;
  return executeAction(appUrl, action, args, checked.account, timeoutMs, signal);
}

/** POST <app>/api/v1/automations/action/execute with an account already validated. */
export async function executeAction(
  appUrl: string,
  action: string,
  args: Record<string, string>,
  account: Record<string, unknown>,
  timeoutMs = 60_000,
  signal?: AbortSignal,
): Promise<ActionOutcome> {
  const url = appUrl.replace(/\/+$/, '') + EXECUTE_PATH;
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ action: { action, args }, account }),
      signal: signal
        ? AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)])
        : AbortSignal.timeout(timeoutMs),
      redirect: 'manual',
    });
  } catch {
    return { ok: false, message: `The app at ${new URL(appUrl).origin} did not answer`, answer: null };
  }
  // An app is a third party: its answer is read up to a limit, as the sync engine reads answers.
  const body = await readAnswerText(res, MAX_ANSWER_BYTES).catch(() => '');
  if (body === undefined)
    return { ok: false, message: `The app's answer is larger than ${MAX_ANSWER_BYTES} bytes`, answer: null };
  let answer: unknown = null;
  try {
    answer = body ? JSON.parse(body) : {};
  } catch {
    answer = null;
  }
  if (res.ok) return { ok: true, answer };
  const message =
    answer && typeof answer === 'object' && typeof (answer as { message?: unknown }).message === 'string'
      ? (answer as { message: string }).message
      : `The app answered HTTP ${res.status}`;
  return { ok: false, message, answer };
}
