import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Queryable } from '../db/driver.js';
import { escapeHtml, type Html, raw } from './html.js';
import { messagePage } from './layout.js';
import { pageKey } from './page-key.js';
import { readCookie, sessionOf } from './session.js';

// Cross-site request forgery on the page. SameSite cookies are not enough on a developer's
// machine: a page served from another port of the same host (any local dev server) is the same
// *site*, so the browser sends the session cookie with its form posts. Every state-changing request
// under /ui is therefore checked twice:
//  - where it comes from: Sec-Fetch-Site must say same-origin when the browser sends it; otherwise
//    Origin, or else Referer, must name this server's own host and port. A request that carries
//    none of the three is not from a browser page (browsers send Origin with every form post) and
//    goes on to the second check alone;
//  - a form token: every form the page serves carries the session's token in a hidden input, and
//    the POST must send it back. The login form, before any session, carries a token bound to a
//    cookie set with the form (an HMAC of the cookie's random value under the workspace's page key,
//    see page-key.ts: a cookie another page on the same host sets cannot come with a valid token),
//    so a login cannot be forged either.

export const FORM_FIELD = 'csrf';
const LOGIN_COOKIE = 'weft_login';
const LOGIN_TTL_MS = 60 * 60 * 1000;
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Where a request comes from, as far as the browser tells: its own page, another, or not said. */
export function requestSite(req: Request): 'same-origin' | 'cross-origin' | 'unknown' {
  const fetchSite = req.get('sec-fetch-site');
  if (fetchSite) return fetchSite === 'same-origin' ? 'same-origin' : 'cross-origin';
  const from = req.get('origin') ?? req.get('referer');
  if (from === undefined) return 'unknown';
  let host: string;
  try {
    host = new URL(from).host;
  } catch {
    return 'cross-origin'; // `Origin: null` (a sandboxed frame, a data: URL) and anything unreadable
  }
  return host !== '' && host === req.get('host')?.toLowerCase() ? 'same-origin' : 'cross-origin';
}

function refuse(req: Request, res: Response, message: string): void {
  res.status(403);
  if (req.accepts(['json', 'html']) === 'html') {
    res.type('html').send(messagePage('Refused', message).text);
    return;
  }
  res.json({ message, code: 'forbidden' });
}

/** Refuses a state-changing request that another page sent (the first check above). */
export function refuseCrossOrigin(req: Request, res: Response, next: NextFunction): void {
  if (SAFE.has(req.method) || requestSite(req) !== 'cross-origin') next();
  else refuse(req, res, 'Refused: this request came from another site or page, not from the workspace page.');
}

const same = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

const sentToken = (req: Request) => {
  const v = (req.body as Record<string, unknown> | undefined)?.[FORM_FIELD];
  return typeof v === 'string' ? v : '';
};

const TOKEN_MISSING =
  'Refused: the form did not carry this session’s form token. Reload the page and send it again.';

/** POSTs of a logged-in page must send the session's form token (after requireSession). */
export function requireFormToken(req: Request, res: Response, next: NextFunction): void {
  if (SAFE.has(req.method) || same(sentToken(req), sessionOf(res).pageSession.formToken)) next();
  else refuse(req, res, TOKEN_MISSING);
}

const LOGIN_MISSING =
  'Refused: the login form is out of date or was not sent from this page. Reload it and log in again.';

/** The login form's token, bound to a cookie of its own. */
export class LoginTokens {
  constructor(private readonly db: Queryable) {}

  private async sign(nonce: string): Promise<string> {
    return createHmac('sha256', await pageKey(this.db))
      .update(`login ${nonce}`)
      .digest('base64url');
  }

  /** Sets the login cookie and answers the token its form carries. */
  async issue(res: Response, secure: boolean): Promise<string> {
    const nonce = randomBytes(24).toString('base64url');
    const token = await this.sign(nonce);
    res.cookie(LOGIN_COOKIE, nonce, {
      path: '/ui/login',
      httpOnly: true,
      sameSite: 'strict',
      maxAge: LOGIN_TTL_MS,
      secure,
    });
    return token;
  }

  /** Refuses a login post whose token does not match its cookie. */
  check = async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const nonce = readCookie(req, LOGIN_COOKIE);
    if (nonce && same(sentToken(req), await this.sign(nonce))) next();
    else refuse(req, res, LOGIN_MISSING);
  };

  clear(res: Response): void {
    res.clearCookie(LOGIN_COOKIE, { path: '/ui/login', httpOnly: true, sameSite: 'strict' });
  }
}

// Every POST form the page renders starts with `<form ... method="post" ...>` written in the page's
// own templates; values interpolated into a page are escaped (`<` becomes `&lt;`), so no text from a
// user or an app can look like one. The token is put into each such form here, at the one place
// pages are sent, instead of being threaded through every view.
const POST_FORM = /<form\b[^>]*\bmethod="post"[^>]*>/g;

/** The page with the form token in each of its POST forms. */
export function withFormToken(page: Html, token: string): Html {
  const input = `<input type="hidden" name="${FORM_FIELD}" value="${escapeHtml(token)}">`;
  return raw(page.text.replace(POST_FORM, (tag) => tag + input));
}
