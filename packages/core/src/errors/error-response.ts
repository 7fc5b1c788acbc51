import type { Response } from 'express';
import { isWeftError } from './errors.js';
import { redact } from '../logging/redact.js';

/** What the router sends for an error, and what it logs. */
export interface ErrorResponse {
  status: number;
  body: { message: string; tryLater?: true };
  retryAfterSeconds?: number;
  /** True for errors the app did not expect (500s): logged with their stack. */
  unexpected: boolean;
}

interface BodyParserError {
  type?: string;
  status?: number;
  expose?: boolean;
  message?: string;
}

/**
 * Turns anything thrown into the protocol's error answer. Messages of WeftErrors are the
 * app's own words; unexpected errors get a generic message so internals never leak. Every
 * message passes through `redact` so account secrets are never echoed.
 */
export function toErrorResponse(error: unknown, secrets: readonly string[] = []): ErrorResponse {
  if (isWeftError(error)) {
    const body: ErrorResponse['body'] = { message: redact(error.message, secrets) };
    if (error.tryLater) body.tryLater = true;
    const out: ErrorResponse = {
      status: error.status,
      body,
      unexpected: error.status >= 500 && !error.tryLater,
    };
    if (error.retryAfterSeconds !== undefined) out.retryAfterSeconds = error.retryAfterSeconds;
    return out;
  }
  const parserError = error as BodyParserError | null;
  if (parserError && typeof parserError === 'object' && parserError.expose && parserError.status) {
    // body-parser's own errors (malformed JSON, body too large, wrong charset).
    const message =
      parserError.type === 'entity.parse.failed'
        ? 'Request body is not valid JSON'
        : parserError.type === 'entity.too.large'
          ? 'Request body is too large'
          : (parserError.message ?? 'Bad request');
    return { status: parserError.status, body: { message }, unexpected: false };
  }
  return { status: 500, body: { message: 'Internal error in the app' }, unexpected: true };
}

/** Writes an error answer: JSON `{message}` (plus `tryLater`), never HTML, never a stack. */
export function sendError(res: Response, error: ErrorResponse): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  if (error.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(error.retryAfterSeconds));
  res.status(error.status).json(error.body);
}
