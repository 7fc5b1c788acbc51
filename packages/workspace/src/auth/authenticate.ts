import type { NextFunction, Request, Response } from 'express';
import type { Driver } from '../db/driver.js';
import { WorkspaceError } from '../errors.js';
import { authenticate } from '../tokens/token-store.js';
import type { Principal } from './principal.js';

// The acting user and their token travel in res.locals for the routers after this middleware.

const SCHEME = /^(Token|Bearer)\s+(\S+)\s*$/i;

/** `Authorization: Token <t>` (or `Bearer <t>`) on every call; anything else is a 401. */
export function requireToken(driver: Driver) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const header = req.headers.authorization;
    const match = header ? SCHEME.exec(header) : null;
    if (!match) {
      return next(new WorkspaceError(401, 'unauthorized', 'Send Authorization: Token <API_TOKEN>'));
    }
    const principal = await authenticate(driver, match[2]!);
    if (!principal) return next(new WorkspaceError(401, 'unauthorized', 'Unknown or deleted access token'));
    res.locals.principal = principal;
    res.locals.token = match[2]!;
    next();
  };
}

export function principalOf(res: Response): Principal {
  const principal = res.locals.principal as Principal | undefined;
  if (!principal) throw new WorkspaceError(401, 'unauthorized', 'Not authenticated');
  return principal;
}
