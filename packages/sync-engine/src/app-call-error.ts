/**
 * A failed call to an app. The message names the endpoint and repeats the app's own `{message}`;
 * it never carries the request body (which holds the account).
 */
export class AppCallError extends Error {
  readonly path: string;
  /** 0 when the app did not answer */
  readonly status: number;
  readonly appMessage: string | undefined;
  /** the app answered `{tryLater: true}`: retry this page later */
  readonly tryLater: boolean;
  /** worth retrying: tryLater, or no answer at all */
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;

  constructor(
    message: string,
    o: {
      path: string;
      status: number;
      appMessage?: string;
      tryLater?: boolean;
      retryable?: boolean;
      retryAfterMs?: number;
    },
  ) {
    super(message);
    this.name = 'AppCallError';
    this.path = o.path;
    this.status = o.status;
    this.appMessage = o.appMessage;
    this.tryLater = o.tryLater ?? false;
    this.retryable = o.retryable ?? false;
    this.retryAfterMs = o.retryAfterMs;
  }
}
