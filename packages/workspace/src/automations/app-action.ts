// Runs an external-action app's action as the service does: POST <app>/api/v1/automations/action/
// execute with {action: {action, args}, account}. Success is a 2xx answer ({}); a failure is any
// other answer, whose `{message}` is what the run records. The request body holds the account,
// so it never goes into an error or a log.

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
  const body = await res.text();
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
