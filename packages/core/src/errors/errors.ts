/**
 * Errors an app author throws from handlers. Each maps to the HTTP status and JSON body the
 * service expects (spec section 7); anything else becomes a 500 with no stack trace.
 */
export class WeftError extends Error {
  /** HTTP status sent to the service. */
  readonly status: number;
  /** When true the body carries `tryLater: true` so the service retries the page later. */
  readonly tryLater: boolean;
  /** Seconds the service should wait, sent as `Retry-After` when set. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    message: string,
    options: { status?: number; tryLater?: boolean; retryAfterSeconds?: number; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.status = options.status ?? 500;
    this.tryLater = options.tryLater ?? false;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** 400: the request is malformed or a value is invalid. */
export class BadRequestError extends WeftError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { ...options, status: 400 });
  }
}

/** 401: the account's credentials are wrong, expired or revoked. */
export class InvalidAccountError extends WeftError {
  constructor(message = 'The account is not valid', options: { cause?: unknown } = {}) {
    super(message, { ...options, status: 401 });
  }
}

/** 400: the filter the user chose cannot be used. */
export class InvalidFilterError extends WeftError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { ...options, status: 400 });
  }
}

/** 404: an unknown type, action, datalist or resource. */
export class NotFoundError extends WeftError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { ...options, status: 404 });
  }
}

/**
 * A temporary failure (upstream rate limit, outage, timeout): the service retries later.
 * Status 429 when rate-limited, 503 otherwise.
 */
export class TryLaterError extends WeftError {
  constructor(
    message: string,
    options: { retryAfterSeconds?: number; status?: 429 | 503 | 504; cause?: unknown } = {},
  ) {
    super(message, { ...options, status: options.status ?? 503, tryLater: true });
  }
}

/** 401: an OAuth step failed (bad code, expired refresh token, provider refused). */
export class OAuthError extends WeftError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { ...options, status: 401 });
  }
}

/** 401: a webhook event's signature is missing, wrong or too old. */
export class WebhookSignatureError extends WeftError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { ...options, status: 401 });
  }
}

/** 400 by default: an action ran but could not do what was asked. */
export class ActionError extends WeftError {
  constructor(message: string, options: { status?: number; cause?: unknown } = {}) {
    super(message, { ...options, status: options.status ?? 400 });
  }
}

/** 502: the upstream system answered with something the app cannot use. */
export class UpstreamError extends WeftError {
  /** Status the upstream answered with, when it answered. */
  readonly upstreamStatus: number | undefined;
  constructor(message: string, options: { upstreamStatus?: number; cause?: unknown } = {}) {
    super(message, { ...options, status: 502 });
    this.upstreamStatus = options.upstreamStatus;
  }
}

/** 504 with tryLater: a handler did not finish within the app's time limit. */
export class HandlerTimeoutError extends WeftError {
  constructor(message: string) {
    super(message, { status: 504, tryLater: true });
  }
}

export function isWeftError(error: unknown): error is WeftError {
  return error instanceof WeftError;
}
