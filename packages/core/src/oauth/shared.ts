import type { AuthenticationField } from '../protocol/index.js';
import { InvalidAccountError, TryLaterError, WeftError } from '../errors/errors.js';
import { redact } from '../logging/redact.js';

/** 500: the app is missing OAuth configuration (an environment variable). */
export class OAuthConfigError extends WeftError {
  constructor(message: string) {
    super(message, { status: 500 });
  }
}

/**
 * Reads a credential: the explicit value when given, else the environment variable, read at
 * request time so an app starts without it. The error names the variable, never a value.
 */
export function credential(explicit: string | undefined, envName: string, what: string): string {
  if (explicit !== undefined && explicit !== '') return explicit;
  const value = process.env[envName];
  if (value === undefined || value === '') {
    throw new OAuthConfigError(`${what} is not configured: set the environment variable ${envName}`);
  }
  return value;
}

/** The account title and extra fields an `account` hook returns. */
export interface AccountInfo {
  name: string;
  [field: string]: unknown;
}

/**
 * Runs an app's `account` hook; an upstream 401/403 inside it (an error carrying such a status)
 * means the credentials are not valid.
 */
export async function runAccountHook(run: () => Promise<AccountInfo>): Promise<AccountInfo> {
  let info: AccountInfo;
  try {
    info = await run();
  } catch (error) {
    if (error instanceof WeftError) throw error;
    const status = statusOf(error);
    if (status === 401 || status === 403) {
      throw new InvalidAccountError(`The provider refused the account's credentials (${status})`, {
        cause: error,
      });
    }
    throw error;
  }
  if (!info || typeof info.name !== 'string' || info.name === '') {
    throw new WeftError('The OAuth account hook must return an object with a non-empty name', {
      status: 500,
    });
  }
  return info;
}

function statusOf(error: unknown): number | undefined {
  if (!error || typeof error !== 'object') return undefined;
  const e = error as { status?: unknown; statusCode?: unknown; response?: { status?: unknown } };
  for (const value of [e.status, e.statusCode, e.response?.status]) {
    if (typeof value === 'number') return value;
  }
  return undefined;
}

/** Rejects as soon as `signal` aborts, without waiting for `promise`. */
export function raceSignal<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason instanceof Error
    ? signal.reason
    : new DOMException('The operation was aborted', 'AbortError');
}

/** `error` and `error_description` of an OAuth error answer, shortened and redacted. */
export function describeProviderError(payload: unknown, secrets: readonly string[]): string {
  let text = '';
  if (Buffer.isBuffer(payload)) payload = payload.toString('utf8');
  if (typeof payload === 'string') {
    try {
      payload = JSON.parse(payload) as unknown;
    } catch {
      const form = new URLSearchParams(payload as string);
      payload = form.has('error') ? Object.fromEntries(form) : payload;
    }
  }
  if (payload && typeof payload === 'object') {
    const p = payload as Record<string, unknown>;
    const parts = [p.error, p.error_description ?? p.message].filter(
      (x): x is string => typeof x === 'string',
    );
    text = parts.length === 2 ? `${parts[0]} (${parts[1]})` : (parts[0] ?? '');
  } else if (typeof payload === 'string') {
    text = payload;
  }
  text = text.replace(/\s+/g, ' ').trim();
  if (text.length > 200) text = `${text.slice(0, 200)}...`;
  return redact(text, secrets);
}

/** A provider that could not be reached or failed (5xx): temporary, the service retries. */
export function providerUnavailable(what: string, detail: string): TryLaterError {
  return new TryLaterError(`${what}: the OAuth provider is unavailable (${detail})`);
}

/** The one descriptor field of an OAuth authentication: the service shows its OAuth form. */
export const OAUTH_FIELD: AuthenticationField = {
  id: 'callback_uri',
  name: 'OAuth',
  title: 'callback_uri',
  type: 'oauth',
  description: 'OAuth post-auth redirect URI',
};
