// One error class for the whole workspace: it carries the HTTP status an endpoint answers with and
// a stable machine-readable code, which is also what a failed command reports.

export type ErrorCode =
  | 'bad-request'
  | 'unauthorized'
  | 'forbidden'
  | 'not-found'
  | 'conflict'
  | 'rate-limited'
  | 'unknown-command'
  | 'invalid-args'
  | 'unknown-type'
  | 'unknown-field'
  | 'invalid-value'
  | 'invalid-query'
  | 'not-empty'
  | 'limit-reached'
  | 'over-budget'
  | 'internal';

export class WorkspaceError extends Error {
  /** which of several entities handled together caused the error, when known */
  index?: number;

  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'WorkspaceError';
  }
}

export const badRequest = (message: string, code: ErrorCode = 'bad-request') =>
  new WorkspaceError(400, code, message);
export const notFound = (message: string, code: ErrorCode = 'not-found') =>
  new WorkspaceError(404, code, message);
export const forbidden = (message: string) => new WorkspaceError(403, 'forbidden', message);
export const conflict = (message: string, code: ErrorCode = 'conflict') =>
  new WorkspaceError(409, code, message);
