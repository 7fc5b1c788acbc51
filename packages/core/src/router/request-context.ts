import type { Request, Response } from 'express';
import { HandlerTimeoutError } from '../errors/errors.js';
import type { Logger } from '../logging/logger.js';

/** Per-request facilities handed to handlers: an abort signal and the logger. */
export interface RequestScope {
  /** Aborted when the time limit passes or the service hangs up; made on first use. */
  readonly signal: AbortSignal;
  log: Logger;
  /** Runs `work` under the app's time limit: a handler can never leave a request hanging. */
  limit<T>(work: Promise<T>): Promise<T>;
  /** Stops the timer; called when the answer is sent. */
  dispose(): void;
}

const HUNG_UP = 'The service closed the connection';

/**
 * The scope of one request. Its abort signal costs a Node `AbortSignal` (an EventTarget, about
 * 2 µs) and a `close` listener on the response, so both are made when a handler first reads
 * `signal`: most data handlers that never pass it on do not pay for it. A signal first read
 * after the service hung up, or after the time limit passed, is already aborted with the same
 * reason an early reader's signal would carry.
 */
export function createRequestScope(
  req: Request,
  res: Response,
  log: Logger,
  timeoutMs: number,
): RequestScope {
  let controller: AbortController | undefined;
  let timer: NodeJS.Timeout | undefined;
  let timedOut: HandlerTimeoutError | undefined;
  let onClose: (() => void) | undefined;
  return {
    get signal(): AbortSignal {
      if (controller) return controller.signal;
      const made = new AbortController();
      controller = made;
      if (timedOut) made.abort(timedOut);
      else if (res.destroyed && !res.writableFinished) made.abort(new Error(HUNG_UP));
      else {
        // The service hung up: stop upstream work that nobody will read.
        onClose = () => {
          if (!res.writableFinished) made.abort(new Error(HUNG_UP));
        };
        res.once('close', onClose);
      }
      return made.signal;
    },
    log,
    limit<T>(work: Promise<T>): Promise<T> {
      // One promise settled by whichever comes first (Promise.race costs two more).
      return new Promise<T>((resolve, reject) => {
        timer = setTimeout(() => {
          timedOut = new HandlerTimeoutError(`The app did not answer ${req.path} within ${timeoutMs} ms`);
          controller?.abort(timedOut);
          reject(timedOut);
        }, timeoutMs);
        timer.unref?.();
        work.then(resolve, reject);
      });
    },
    dispose() {
      if (timer) clearTimeout(timer);
      if (onClose) {
        res.off('close', onClose);
        onClose = undefined;
      }
    },
  };
}
