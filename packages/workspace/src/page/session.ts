import { randomBytes } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Principal } from '../auth/principal.js';

// Page sessions: logging in with a workspace token gives a random session id in an HttpOnly,
// SameSite=Strict cookie; the token itself never travels to the browser again (not in URLs, not in
// the page). The server keeps it with the session to call the app host's JSON API for the user.
// Sessions are kept in this process's memory: a restart logs everyone out, which is fine locally.

export const COOKIE = 'weft_page';
const TTL_MS = 12 * 60 * 60 * 1000;

export class Sessions {
  private readonly byId = new Map<string, { user: Principal; token: string; expires: number }>();

  create(user: Principal, token: string): string {
    const id = randomBytes(32).toString('base64url');
    this.byId.set(id, { user, token, expires: Date.now() + TTL_MS });
    return id;
  }

  token(id: string | undefined): string | undefined {
    return this.get(id) ? this.byId.get(id!)?.token : undefined;
  }

  get(id: string | undefined): Principal | undefined {
    if (!id) return undefined;
    const s = this.byId.get(id);
    if (!s) return undefined;
    if (s.expires < Date.now()) {
      this.byId.delete(id);
      return undefined;
    }
    return s.user;
  }

  delete(id: string | undefined): void {
    if (id) this.byId.delete(id);
  }
}

export function readCookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return decodeURIComponent(v.join('='));
  }
  return undefined;
}

export function setSessionCookie(res: Response, id: string, secure: boolean): void {
  res.setHeader(
    'set-cookie',
    `${COOKIE}=${id}; Path=/ui; HttpOnly; SameSite=Strict; Max-Age=${TTL_MS / 1000}${secure ? '; Secure' : ''}`,
  );
}

export function clearSessionCookie(res: Response): void {
  res.setHeader('set-cookie', `${COOKIE}=; Path=/ui; HttpOnly; SameSite=Strict; Max-Age=0`);
}

/** Sends visitors without a session to the login form; pages get the user in res.locals. */
export function requireSession(sessions: Sessions) {
  return (req: Request, res: Response, next: NextFunction) => {
    const user = sessions.get(readCookie(req, COOKIE));
    if (!user) {
      if (req.method === 'GET' && req.accepts('html')) return res.redirect(303, '/ui/login');
      return res.status(401).json({ message: 'Log in first' });
    }
    res.locals.pageUser = user;
    next();
  };
}
