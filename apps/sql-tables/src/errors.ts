// Postgres errors as the protocol's answers: a bad account is a 401, a database that is busy or
// unreachable a 503 the service retries later; the rest stays an error of the app.
import { InvalidAccountError, TryLaterError, WeftError } from '@weft/core';

/** SQLSTATE classes and codes (see the Postgres manual, "PostgreSQL Error Codes"). */
const ACCOUNT_CODES = new Set(['28000', '28P01', '3D000', '42501']);
const LATER_CODES = new Set(['57014', '57P01', '57P02', '57P03', '53300', '40001', '40P01', '55P03']);
const NETWORK = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * Whether a failed statement failed for what it says (its syntax, a name, a type, a permission):
 * an error from the server with a SQLSTATE outside the database's own trouble. A time limit, a
 * shutdown, a lost connection or a server out of resources is not the statement's fault.
 */
export function isStatementFault(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || code.length !== 5) return false;
  if (LATER_CODES.has(code)) return false;
  return !['08', '53', '57', '58', 'XX'].includes(code.slice(0, 2));
}

export function databaseError(error: unknown, during: string): Error {
  if (error instanceof WeftError) return error;
  const e = error as { code?: string; message?: string };
  const message = `${during}: ${e.message ?? 'database error'}`;
  if (e.code && ACCOUNT_CODES.has(e.code)) return new InvalidAccountError(message);
  // node-postgres, when the server asks for a password and the account has none.
  if (/client password must be a string/.test(e.message ?? '')) {
    return new InvalidAccountError(`${during}: the database asks for a password`);
  }
  if (e.code && LATER_CODES.has(e.code)) return new TryLaterError(message, { retryAfterSeconds: 30 });
  if (e.code && NETWORK.has(e.code))
    return new TryLaterError(`${during}: the database does not answer (${e.code})`, {
      retryAfterSeconds: 60,
    });
  if (/timeout/i.test(e.message ?? ''))
    return new TryLaterError(`${during}: the database did not answer in time`, { retryAfterSeconds: 60 });
  return new WeftError(message, { status: 502 });
}
