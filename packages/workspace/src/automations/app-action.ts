// Runs an external-action app's action as the service does: POST <app>/api/v1/automations/action/
// execute with {action: {action, args}, account}. Success is a 2xx answer ({}); a failure is any
// other answer, whose `{message}` is what the run records. The request body holds the account,
// so it never goes into an error or a log.

import { MAX_ANSWER_BYTES, readAnswerText } from '@weft/sync-engine';

export const EXECUTE_PATH = '/api/v1/automations/action/execute';

export type ActionOutcome = { ok: true; answer: unknown } | { ok: false; message: string; answer: unknown };

export async function runAppAction(
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
