import type { NextFunction, Request, Response } from 'express';
import type { Driver } from '../db/driver.js';
import { WorkspaceError } from '../errors.js';
import { hashToken } from '../tokens/token-store.js';
import { chargeMore, takeRequest } from './rate-limiter.js';

/**
 * `rate` commands per second per token (0: no limit); beyond it HTTP 429 with Retry-After. A
 * request is let in while its token's bucket holds at least one command, and charged one; the
 * data API charges the rest of its commands once it has read them (chargeCommands).
 */
export function rateLimit(driver: Driver, rate: number) {
  return async (_req: Request, res: Response, next: NextFunction) => {
    const token = res.locals.token as string | undefined;
    if (rate <= 0 || !token) return next();
    const key = hashToken(token);
    const decision = await takeRequest(driver, key, rate);
    if (decision.allowed) {
      res.locals.rateKey = key;
      return next();
    }
    res.setHeader('Retry-After', String(decision.retryAfter));
    next(new WorkspaceError(429, 'rate-limited', `More than ${rate} commands per second with this token`));
  };
}

/** Charges a request of `commands` top-level commands for those beyond the one rateLimit took. */
export async function chargeCommands(driver: Driver, res: Response, commands: number): Promise<void> {
  const key = res.locals.rateKey as string | undefined;
  if (key !== undefined) await chargeMore(driver, key, commands - 1);
}
