import type { NextFunction, Request, Response } from 'express';
import type { Driver } from '../db/driver.js';
import { WorkspaceError } from '../errors.js';
import { hashToken } from '../tokens/token-store.js';
import { takeRequest } from './rate-limiter.js';

/** `rate` requests per second per token (0: no limit); beyond it HTTP 429 with Retry-After. */
export function rateLimit(driver: Driver, rate: number) {
  return async (_req: Request, res: Response, next: NextFunction) => {
    const token = res.locals.token as string | undefined;
    if (rate <= 0 || !token) return next();
    const decision = await takeRequest(driver, hashToken(token), rate);
    if (decision.allowed) return next();
    res.setHeader('Retry-After', String(decision.retryAfter));
    next(new WorkspaceError(429, 'rate-limited', `More than ${rate} requests per second with this token`));
  };
}
