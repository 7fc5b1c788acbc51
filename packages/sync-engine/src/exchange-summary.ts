import { clip, collectSecrets, REDACTED, redact } from '@weft/core/redact';
import type { Exchange } from './exchange.js';

// One exchange as a person reads it, wherever it is shown (`weft invoke`, a sync run's record on
// the workspace's page, `weft dev --verbose`): the request with the account's secrets redacted,
// the status, how long it took, and, when the app answered an error, its body as it sent it. The
// request body holds the account, so nothing else of an exchange is ever shown.

type Json = Record<string, unknown>;

/** Characters of a request or an error body kept in a summary. */
export const MAX_SUMMARY_TEXT = 2000;

export interface ExchangeSummary {
  method: string;
  path: string;
  /** the request body, the account's secret values replaced by `[redacted]` */
  request?: string;
  /** absent when the app did not answer */
  status?: number;
  ms: number;
  /** why there was no answer (a timeout, a refused connection) */
  failure?: string;
  /** the app's answer when it was an error (not 2xx), as it sent it, secrets redacted */
  errorBody?: string;
}

/**
 * The values of an account that must never be shown: those of secret-named keys (token,
 * password, api key, ...) and of the fields the app declares as passwords (`secretFields`).
 */
export function accountSecrets(account: Json, secretFields: Iterable<string> = []): string[] {
  return collectSecrets(account, secretFields);
}

/** The request body with the account's secret values redacted, whatever its shape. */
function redactedRequest(body: string, secrets: readonly string[]): string {
  let text = body;
  try {
    const parsed = JSON.parse(body) as unknown;
    // Structurally first (a secret with quotes or backslashes is escaped in the JSON text) ...
    text = JSON.stringify(parsed, (key, value) =>
      typeof value === 'string' && secrets.includes(value) && key !== '' ? REDACTED : value,
    );
  } catch {
    // not JSON: the text pass below still applies
  }
  // ... then in any form it may take inside another value (encoded, in base64).
  return redact(text, secrets);
}

export function summarizeExchange(exchange: Exchange, secrets: readonly string[]): ExchangeSummary {
  const out: ExchangeSummary = {
    method: exchange.method,
    path: exchange.path,
    ms: Math.round(exchange.ms),
  };
  if (exchange.requestBody !== undefined)
    out.request = clip(redactedRequest(exchange.requestBody, secrets), MAX_SUMMARY_TEXT);
  if (exchange.status !== undefined) out.status = exchange.status;
  if (exchange.failure !== undefined) out.failure = exchange.failure;
  const failed = exchange.status !== undefined && (exchange.status < 200 || exchange.status > 299);
  if (failed) {
    const body = exchange.text ?? (exchange.json !== undefined ? JSON.stringify(exchange.json) : undefined);
    const text =
      exchange.tooLarge !== undefined ? `(a body over ${exchange.tooLarge} bytes, not read)` : (body ?? '');
    out.errorBody = clip(redact(text, secrets), MAX_SUMMARY_TEXT);
  }
  return out;
}

/**
 * An exchange for a console: `POST /api/v1/synchronizer/data 200 in 12 ms` followed by what the
 * caller adds (`book page 2: 500 items`) and the failure, then indented lines with the request
 * (redacted) and, for an error, the app's answer.
 */
export function exchangeLine(summary: ExchangeSummary, detail?: string): string {
  const outcome = summary.status !== undefined ? String(summary.status) : 'no answer';
  let line = `${summary.method} ${summary.path} ${outcome} in ${summary.ms} ms`;
  if (detail) line += `: ${detail}`;
  if (summary.failure) line += ` (${summary.failure})`;
  if (summary.request !== undefined) line += `\n  request: ${summary.request}`;
  if (summary.errorBody !== undefined) line += `\n  answer: ${summary.errorBody || '(empty body)'}`;
  return line;
}
