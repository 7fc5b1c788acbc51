import type { Request, Response } from 'express';
import { HandlerTimeoutError } from '../errors/errors.js';
import type { Logger } from '../logging/logger.js';

/** Per-request facilities handed to handlers: an abort signal and the logger. */
export interface RequestScope {
  signal: AbortSignal;
  log: Logger;
  /** Runs `work` under the app's time limit: a handler can never leave a request hanging. */
  limit<T>(work: Promise<T>): Promise<T>;
  /** Stops the timer; called when the answer is sent. */
  dispose(): void;
}

export function createRequestScope(
  req: Request,
  res: Response,
  log: Logger,
  timeoutMs: number,
): RequestScope {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  // The service hung up: stop upstream work that nobody will read.
  const onClose = () => {
    if (!res.writableFinished) controller.abort(new Error('The service closed the connection'));
  };
  res.once('close', onClose);
  return {
    signal: controller.signal,
    log,
    limit<T>(work: Promise<T>): Promise<T> {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          const error = new HandlerTimeoutError(`The app did not answer ${req.path} within ${timeoutMs} ms`);
          controller.abort(error);
          reject(error);
        }, timeoutMs);
        timer.unref?.();
      });
      return Promise.race([work, timeout]);
    },
    dispose() {
      if (timer) clearTimeout(timer);
      res.off('close', onClose);
    },
  };
}
