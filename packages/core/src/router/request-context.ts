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

export function createRequestScope(
  req: Request,
  res: Response,
  log: Logger,
  timeoutMs: number,
): RequestScope {
  return new Scope(req, res, log, timeoutMs);
}

/**
 * The scope of one request. Its abort signal costs a Node `AbortSignal` (an EventTarget) and a
 * `close` listener on the response, so both are made when a handler first reads `signal`: data
 * handlers that never pass it on do not pay for it. A signal first read after the service hung
 * up, or after the time limit passed, is already aborted with the reason an early reader's
 * signal carries. A class, not an object literal with a getter: such a literal gets a map of
 * its own on every request, which measured about 15 µs per request on a real socket.
 */
class Scope implements RequestScope {
  private controller: AbortController | undefined;
  private timer: NodeJS.Timeout | undefined;
  private timedOut: HandlerTimeoutError | undefined;
  private onClose: (() => void) | undefined;

  constructor(
    private readonly req: Request,
    private readonly res: Response,
    readonly log: Logger,
    private readonly timeoutMs: number,
  ) {}

  get signal(): AbortSignal {
    if (this.controller) return this.controller.signal;
    const controller = new AbortController();
    this.controller = controller;
    const res = this.res;
    if (this.timedOut) controller.abort(this.timedOut);
    else if (res.destroyed && !res.writableFinished) controller.abort(new Error(HUNG_UP));
    else {
      // The service hung up: stop upstream work that nobody will read.
      this.onClose = () => {
        if (!res.writableFinished) controller.abort(new Error(HUNG_UP));
      };
      res.once('close', this.onClose);
    }
    return controller.signal;
  }

  limit<T>(work: Promise<T>): Promise<T> {
    // One promise settled by whichever comes first (Promise.race costs two more).
    return new Promise<T>((resolve, reject) => {
      this.timer = setTimeout(() => {
        this.timedOut = new HandlerTimeoutError(
          `The app did not answer ${this.req.path} within ${this.timeoutMs} ms`,
        );
        this.controller?.abort(this.timedOut);
        reject(this.timedOut);
      }, this.timeoutMs);
      this.timer.unref?.();
      work.then(resolve, reject);
    });
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.onClose) {
      this.res.off('close', this.onClose);
      this.onClose = undefined;
    }
  }
}

/** Where a handler context keeps its request scope: not enumerable, so no copy carries it. */
const SCOPE: unique symbol = Symbol('weft.scope');

function scopeSignal(this: { [SCOPE]?: RequestScope }): AbortSignal {
  const scope = this[SCOPE];
  if (!scope) throw new TypeError('signal read from an object that is not a handler context');
  return scope.signal;
}

/**
 * Gives a handler context a `signal` that is made when the handler first reads it (a Node
 * AbortSignal costs several µs per request; most handlers never pass it on). One shared
 * getter, so every context keeps one hidden class: a getter written in the object literal is a
 * new closure per request, which gave every context a map of its own and cost more than the
 * signal itself; a WeakMap from context to scope cost about 10 µs per request in the garbage
 * collector. Enumerable, so `{ ...ctx }` still carries the signal.
 */
export function withLazySignal<T extends object>(scope: RequestScope, ctx: T): T & { signal: AbortSignal } {
  // Two defineProperty calls, the getter's descriptor made once: about a third of the time of one
  // defineProperties call with a descriptor map built per request.
  Object.defineProperty(ctx, SCOPE, { value: scope });
  Object.defineProperty(ctx, 'signal', SIGNAL);
  return ctx as T & { signal: AbortSignal };
}

const SIGNAL: PropertyDescriptor = { get: scopeSignal, enumerable: true, configurable: true };
