import { randomBytes } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Principal } from '../auth/principal.js';
import type { Queryable } from '../db/driver.js';
import { authenticate } from '../tokens/token-store.js';

// Page sessions: logging in with a workspace token gives a random session id in an HttpOnly,
// SameSite=Strict cookie; the token itself never travels to the browser again (not in URLs, not in
// the page). The server keeps it with the session to call the app host's JSON API for the user,
// and looks it up again on every request: a session lasts only as long as its token (deleting the
// token, or its user, ends the session at its next request) and carries the user's current role.
// Sessions are kept in this process's memory: a restart logs everyone out, which is fine locally.

export const COOKIE = 'weft_page';
const TTL_MS = 12 * 60 * 60 * 1000;

export interface Session {
  token: string;
  /** the session's form token: every form the page serves carries it, every POST must send it */
  formToken: string;
  expires: number;
}

export class Sessions {
  private readonly byId = new Map<string, Session>();

  create(token: string): string {
    this.sweep();
    const id = randomBytes(32).toString('base64url');
    this.byId.set(id, {
      token,
      formToken: randomBytes(32).toString('base64url'),
      expires: Date.now() + TTL_MS,
    });
    return id;
  }

  get(id: string | undefined): Session | undefined {
    if (!id) return undefined;
    const s = this.byId.get(id);
    if (s && s.expires < Date.now()) {
      this.byId.delete(id);
      return undefined;
    }
    return s;
  }

  delete(id: string | undefined): void {
    if (id) this.byId.delete(id);
  }

  /** Drops expired sessions, so that sessions nobody comes back to do not pile up. */
  private sweep(): void {
    const now = Date.now();
    for (const [id, s] of this.byId) if (s.expires < now) this.byId.delete(id);
  }
}

export function readCookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) {
      try {
        return decodeURIComponent(v.join('='));
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

export function setSessionCookie(res: Response, id: string, secure: boolean): void {
  res.cookie(COOKIE, id, { path: '/ui', httpOnly: true, sameSite: 'strict', maxAge: TTL_MS, secure });
}

export function clearSessionCookie(res: Response): void {
  res.clearCookie(COOKIE, { path: '/ui', httpOnly: true, sameSite: 'strict' });
}

/** What requireSession leaves for the pages in res.locals. */
export interface PageLocals {
  pageUser: Principal;
  pageSession: Session;
}

export const sessionOf = (res: Response) => res.locals as PageLocals;

/** The session and its user, while both the session and its token are there (else it ends). */
export async function liveSession(
  sessions: Sessions,
  db: Queryable,
  id: string | undefined,
): Promise<{ session: Session; user: Principal } | undefined> {
  const session = sessions.get(id);
  if (!session) return undefined;
  const user = await authenticate(db, session.token);
  if (user) return { session, user };
  sessions.delete(id);
  return undefined;
}

/**
 * Sends visitors without a live session to the login form (a browser) or answers 401 (any other
 * client); the session's token is checked against the workspace's tokens on every request.
 */
export function requireSession(sessions: Sessions, db: Queryable) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const id = readCookie(req, COOKIE);
    const live = await liveSession(sessions, db, id);
    if (!live) {
      if (id) clearSessionCookie(res);
      if (req.accepts(['json', 'html']) === 'html' || (req.method === 'GET' && req.accepts('html')))
        return res.redirect(303, '/ui/login');
      return res.status(401).json({ message: 'Log in first', code: 'unauthorized' });
    }
    res.locals.pageUser = live.user;
    res.locals.pageSession = live.session;
    res.locals.formToken = live.session.formToken;
    next();
  };
}
