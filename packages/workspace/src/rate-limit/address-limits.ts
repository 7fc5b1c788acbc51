import type { Request, RequestHandler, Response } from 'express';
import { rateLimit } from 'express-rate-limit';
import { WorkspaceError } from '../errors.js';

// Limits by client address, for what has no token to count against: the pages under /ui (their
// login form included) and API calls whose token is missing or unknown, each of which would
// otherwise cost a token lookup in the database. Counted in this process' memory, so a flood is
// turned away before it reaches the database. The address is the connection's (X-Forwarded-For is
// not believed: the workspace trusts no proxy).

export interface AddressLimits {
  /** requests to /ui per minute per client address; 0: no limit */
  pagesPerMinute: number;
  /** API requests per minute per client address that end in 401 (no or unknown token); 0: no limit */
  unknownTokensPerMinute: number;
}

export const DEFAULT_ADDRESS_LIMITS: AddressLimits = {
  pagesPerMinute: 600,
  unknownTokensPerMinute: 60,
};

const pass: RequestHandler = (_req, _res, next) => next();

function limiter(perMinute: number, what: string, onlyFailures: boolean): RequestHandler {
  if (perMinute <= 0) return pass;
  return rateLimit({
    windowMs: 60_000,
    limit: perMinute,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    validate: { xForwardedForHeader: false },
    ...(onlyFailures
      ? {
          skipSuccessfulRequests: true,
          requestWasSuccessful: (_req: Request, res: Response) => res.statusCode !== 401,
        }
      : {}),
    handler: (_req, _res, next) =>
      next(
        new WorkspaceError(
          429,
          'rate-limited',
          `More than ${perMinute} ${what} per minute from this address`,
        ),
      ),
  });
}

/** For /ui: every request counts. */
export const pageLimit = (limits: AddressLimits): RequestHandler =>
  limiter(limits.pagesPerMinute, 'page requests', false);

/** For /api, before the token lookup: only requests answered 401 count. */
export const unknownTokenLimit = (limits: AddressLimits): RequestHandler =>
  limiter(limits.unknownTokensPerMinute, 'requests with a missing or unknown token', true);
