import type { Exchange } from '@weft/sync-engine';
import { truncate } from './util.js';

/** One request to the app and what came back, as the sync engine's client records it. */
export type { Exchange };

/**
 * Header of `GET /` with the app's own handler time limit in ms (apps built with weft's core send
 * it). The kit then waits longer than that, so the app's 504 `tryLater` is seen, not "no answer".
 */
export const TIME_LIMIT_HEADER = 'x-weft-time-limit';

/**
 * Header of a core app's data answers: the rows its handler yielded again, and core dropped, to
 * serve that page (a handler without `resume()` points replays the stream from the start).
 */
export const REPLAYED_ROWS_HEADER = 'x-weft-replayed-rows';

/** A short description of what came back, for reasons. */
export function describeAnswer(ex: Exchange): string {
  if (ex.failure) return ex.failure;
  const body = ex.text ?? '';
  const kind = ex.isJson ? '' : body.length === 0 ? ' with an empty body' : ' with a non-JSON body';
  return `HTTP ${ex.status}${kind}`;
}

export function looksLikeHtml(ex: Exchange): boolean {
  return /html/i.test(ex.contentType ?? '') || /^\s*</.test(ex.text ?? '');
}

export const REQUEST_EXCERPT = 300;
export const RESPONSE_EXCERPT = 500;

export const REDACTED = '***';

/** Replaces every secret in `text` (longest first) before it goes into a report. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    out = out.split(secret).join(REDACTED);
    const quoted = JSON.stringify(secret).slice(1, -1);
    if (quoted !== secret) out = out.split(quoted).join(REDACTED);
  }
  return out;
}

export function requestExcerpt(
  ex: Exchange,
  secrets: readonly string[] = [],
): { method: string; path: string; body?: string } {
  const out: { method: string; path: string; body?: string } = { method: ex.method, path: ex.path };
  if (ex.requestBody !== undefined) out.body = truncate(redact(ex.requestBody, secrets), REQUEST_EXCERPT);
  return out;
}

export function responseExcerpt(
  ex: Exchange,
  secrets: readonly string[] = [],
): { status?: number; body?: string } {
  const out: { status?: number; body?: string } = {};
  if (ex.status !== undefined) out.status = ex.status;
  if (ex.failure) out.body = `(${ex.failure})`;
  else if (ex.text !== undefined) out.body = truncate(redact(ex.text, secrets), RESPONSE_EXCERPT);
  return out;
}
