import { timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { type AddressList, addressList, normalizeAddress } from './address-list.js';

/** Who may call the app. Every option is off when absent; the two checks combine (both must pass). */
export interface AccessOptions {
  /** Accept requests only from these IP addresses / CIDR ranges (the service's egress addresses). */
  allowFrom?: readonly string[];
  /**
   * Proxies (addresses / ranges) whose `X-Forwarded-For` is believed. The client is the rightmost
   * address in that header that is not itself a trusted proxy. Without this option the header
   * is ignored, so nobody can claim an allowed address by sending it.
   */
  trustedProxies?: readonly string[];
  /**
   * Accept requests only when the header `sharedSecretHeader` carries one of these values
   * (several during a rotation). Configure the same value as a custom header on the service side.
   */
  sharedSecret?: string | readonly string[];
  /** Header of the shared secret; default `x-weft-secret`. */
  sharedSecretHeader?: string;
}

const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);

/** Access options from `WEFT_ALLOW_FROM`, `WEFT_TRUSTED_PROXIES`, `WEFT_SHARED_SECRET` (comma-separated) and `WEFT_SHARED_SECRET_HEADER`. */
export function accessFromEnv(env: NodeJS.ProcessEnv = process.env): AccessOptions {
  const out: AccessOptions = {};
  if (list(env.WEFT_ALLOW_FROM).length > 0) out.allowFrom = list(env.WEFT_ALLOW_FROM);
  if (list(env.WEFT_TRUSTED_PROXIES).length > 0) out.trustedProxies = list(env.WEFT_TRUSTED_PROXIES);
  if (list(env.WEFT_SHARED_SECRET).length > 0) out.sharedSecret = list(env.WEFT_SHARED_SECRET);
  if (env.WEFT_SHARED_SECRET_HEADER) out.sharedSecretHeader = env.WEFT_SHARED_SECRET_HEADER;
  return out;
}

/** The address a request comes from, honouring `X-Forwarded-For` only from trusted proxies. */
export function clientAddress(req: Request, trusted: AddressList | undefined): string {
  const peer = normalizeAddress(req.socket.remoteAddress ?? '');
  if (!trusted?.has(peer)) return peer;
  const forwarded = (req.headers['x-forwarded-for'] ?? '')
    .toString()
    .split(',')
    .map((a) => normalizeAddress(a))
    .filter(Boolean);
  for (let i = forwarded.length - 1; i >= 0; i -= 1) {
    if (!trusted.has(forwarded[i]!)) return forwarded[i]!;
  }
  return forwarded[0] ?? peer;
}

/**
 * Express middleware enforcing {@link AccessOptions}: 403 `{message}` for an address not
 * allowed, 401 `{message}` for a missing or wrong shared secret. Undefined when nothing is
 * restricted. Throws at start-up for an entry that is not an address or range.
 */
export function accessGuard(options: AccessOptions): RequestHandler | undefined {
  const allowed =
    options.allowFrom && options.allowFrom.length > 0 ? addressList(options.allowFrom) : undefined;
  const trusted =
    options.trustedProxies && options.trustedProxies.length > 0
      ? addressList(options.trustedProxies)
      : undefined;
  const secrets = (
    typeof options.sharedSecret === 'string' ? [options.sharedSecret] : (options.sharedSecret ?? [])
  )
    .filter((s) => s.length > 0)
    .map((s) => Buffer.from(s, 'utf8'));
  if (secrets.some((s) => s.length < 16))
    throw new TypeError('A shared secret must be at least 16 characters long');
  const header = (options.sharedSecretHeader ?? 'x-weft-secret').toLowerCase();
  if (!allowed && secrets.length === 0) return undefined;
  return (req, res, next) => {
    if (allowed && !allowed.has(clientAddress(req, trusted))) {
      res.status(403).json({ message: 'Requests from this address are not accepted' });
      return;
    }
    if (secrets.length > 0) {
      const given = Buffer.from(String(req.headers[header] ?? ''), 'utf8');
      const ok = secrets.some((s) => s.length === given.length && timingSafeEqual(s, given));
      if (!ok) {
        res.status(401).json({ message: `Missing or wrong ${header} header` });
        return;
      }
    }
    next();
  };
}
