import { createHash, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Principal } from '../auth/principal.js';
import type { Queryable } from '../db/driver.js';
import { SecretBox } from '../host/secret-box.js';
import { authenticate } from '../tokens/token-store.js';
import { pageKey } from './page-key.js';

// Page sessions: logging in with a workspace token gives a random session id in an HttpOnly,
// SameSite=Strict cookie; the token itself never travels to the browser again (not in URLs, not in
// the page). The server keeps it with the session to call the app host's JSON API for the user,
// and looks it up again on every request: a session lasts only as long as its token (deleting the
// token, or its user, ends the session at its next request) and carries the user's current role.
//
// Sessions are kept in the workspace's database (svc_page_sessions), so every process on one
// database serves them and a restart keeps them. What a row holds is of no use without the cookie:
// the session id only as its SHA-256, and the token sealed (AES-256-GCM) under a key derived from
// the session id, which only the browser holds.

export const COOKIE = 'weft_page';
const TTL_MS = 12 * 60 * 60 * 1000;
/** a session id is 43 characters (32 random bytes); anything much longer is not one */
const MAX_ID = 100;

export interface Session {
  token: string;
  /** the session's form token: every form the page serves carries it, every POST must send it */
  formToken: string;
}

const idHash = (id: string) => createHash('sha256').update(id).digest('base64url');
const sealKey = (id: string) =>
  Buffer.from(hkdfSync('sha256', id, '', 'weft page session token', 32) as ArrayBuffer);

/** The token sealed under the session id's key (SecretBox: AES-256-GCM). */
const seal = (id: string, token: string) => new SecretBox(sealKey(id)).seal(token);

/** The token again, or undefined for a value not sealed under this id's key. */
function unseal(id: string, value: string): string | undefined {
  try {
    return new SecretBox(sealKey(id)).open<string>(value);
  } catch {
    return undefined;
  }
}

export class Sessions {
  constructor(private readonly db: Queryable) {}

  /** A new session for the token; answers its id (the cookie's value). */
  async create(token: string): Promise<string> {
    // Sessions nobody came back to are dropped as new ones come, so they do not pile up.
    await this.db.query(`DELETE FROM svc_page_sessions WHERE expires < now()`);
    const id = randomBytes(32).toString('base64url');
    await this.db.query(
      `INSERT INTO svc_page_sessions (id, sealed, expires) VALUES ($1, $2, now() + make_interval(secs => $3))`,
      [idHash(id), seal(id, token), TTL_MS / 1000],
    );
    return id;
  }

  async get(id: string | undefined): Promise<Session | undefined> {
    if (!id || id.length > MAX_ID) return undefined;
    const { rows } = await this.db.query<{ sealed: string }>(
      `SELECT sealed FROM svc_page_sessions WHERE id = $1 AND expires > now()`,
      [idHash(id)],
    );
    const token = rows[0] && unseal(id, rows[0].sealed);
    if (!token) return undefined;
    const formToken = createHmac('sha256', await pageKey(this.db))
      .update(`form token ${id}`)
      .digest('base64url');
    return { token, formToken };
  }

  async delete(id: string | undefined): Promise<void> {
    if (id && id.length <= MAX_ID)
      await this.db.query(`DELETE FROM svc_page_sessions WHERE id = $1`, [idHash(id)]);
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
  const session = await sessions.get(id);
  if (!session) return undefined;
  const user = await authenticate(db, session.token);
  if (user) return { session, user };
  await sessions.delete(id);
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
