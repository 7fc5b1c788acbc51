import type { NextFunction, Request, Response } from 'express';
import { withFormToken } from './csrf.js';
import type { Html } from './html.js';

// The headers of everything under /ui, and the one place a page is sent.
// The Content-Security-Policy allows only the page's own files: its script (/ui/live.js) and its
// stylesheet (/ui/style.css) are served files, so no inline script or style is allowed at all;
// images may come from https (rich text) and data: URLs. No one may frame the page, and no other
// site learns its addresses through Referer.
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  'img-src https: data:',
  "connect-src 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function pageHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('content-security-policy', CSP);
  res.setHeader('x-frame-options', 'DENY');
  res.setHeader('referrer-policy', 'same-origin');
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('cache-control', 'no-store');
  next();
}

/**
 * Sends a page; its POST forms carry the form token in res.locals.formToken (the session's, or
 * the login form's).
 */
export function sendPage(res: Response, page: Html): void {
  const token = res.locals.formToken as string | undefined;
  res.type('html').send((token ? withFormToken(page, token) : page).text);
}
