// An independent RFC 5849 signature check for tests, written from the spec rather than with
// oauth-1.0a, so the library's signing is checked against something it did not produce.
import { createHmac } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** RFC 3986 percent-encoding, as RFC 5849 requires. */
export const rfc3986 = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

export type OAuth1Rejection =
  | 'parameter_absent'
  | 'parameter_rejected'
  | 'signature_method_rejected'
  | 'signature_invalid';

/**
 * Checks the `Authorization: OAuth ...` header of a request (HMAC-SHA1 or HMAC-SHA256).
 * `origin` is the address the client signed for, e.g. `http://127.0.0.1:4321`.
 */
export function checkOAuth1Signature(
  req: IncomingMessage,
  body: string,
  keys: { origin: string; consumerSecret: string; tokenSecret: string },
): { oauth: Record<string, string> } | OAuth1Rejection {
  const auth = req.headers.authorization ?? '';
  if (!auth.startsWith('OAuth ')) return 'parameter_absent';
  const oauth: Record<string, string> = {};
  const params: [string, string][] = [];
  let signature = '';
  for (const part of auth.slice(6).split(/,\s*/)) {
    const match = /^([^=]+)="(.*)"$/.exec(part);
    if (!match) return 'parameter_rejected';
    const key = decodeURIComponent(match[1]!);
    const value = decodeURIComponent(match[2]!);
    if (key === 'oauth_signature') signature = value;
    else if (key !== 'realm') {
      params.push([key, value]);
      oauth[key] = value;
    }
  }
  const method = oauth.oauth_signature_method;
  if (method !== 'HMAC-SHA1' && method !== 'HMAC-SHA256') return 'signature_method_rejected';
  const url = new URL(req.url ?? '/', keys.origin);
  for (const [k, v] of url.searchParams) params.push([k, v]);
  if ((req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
    for (const [k, v] of new URLSearchParams(body)) params.push([k, v]);
  }
  const normalized = params
    .map(([k, v]) => [rfc3986(k), rfc3986(v)] as const)
    .sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : 1) : a[0] < b[0] ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const base = [req.method ?? 'GET', rfc3986(`${url.origin}${url.pathname}`), rfc3986(normalized)].join('&');
  const expected = createHmac(
    method === 'HMAC-SHA256' ? 'sha256' : 'sha1',
    `${rfc3986(keys.consumerSecret)}&${rfc3986(keys.tokenSecret)}`,
  )
    .update(base)
    .digest('base64');
  return expected === signature ? { oauth } : 'signature_invalid';
}
