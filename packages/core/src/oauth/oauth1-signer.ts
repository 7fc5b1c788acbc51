import { createHmac } from 'node:crypto';
import OAuth from 'oauth-1.0a';

/** OAuth 1.0a signature methods weft supports. */
export type OAuth1SignatureMethod = 'HMAC-SHA1' | 'HMAC-SHA256';

/** The app's consumer credentials (registered at the provider). */
export interface OAuth1Consumer {
  key: string;
  secret: string;
}

/** A request token or access token with its secret. */
export interface OAuth1Token {
  key: string;
  secret: string;
}

/** The request to sign. */
export interface OAuth1SignRequest {
  method: string;
  /** Full URL, including any query string (query parameters are part of the signature). */
  url: string;
  /** Form-encoded body parameters (`application/x-www-form-urlencoded`), which are signed too. */
  form?: Record<string, string> | URLSearchParams;
  /**
   * Extra protocol parameters sent in the Authorization header and covered by the signature,
   * e.g. `oauth_callback` or `oauth_verifier`.
   */
  oauthParams?: Record<string, string>;
}

/** Produces the `Authorization` header value for one request; call it anew for every attempt. */
export type OAuth1Signer = (request: OAuth1SignRequest) => string;

/** Options of {@link oauth1Signer}. */
export interface OAuth1SignerOptions {
  /** Default `HMAC-SHA1`. */
  signatureMethod?: OAuth1SignatureMethod;
  /** Optional `realm` added to the header. */
  realm?: string;
}

/** A configured `oauth-1.0a` instance. Internal to weft. */
export function oauth1Client(consumer: OAuth1Consumer, options: OAuth1SignerOptions = {}): OAuth {
  const method = options.signatureMethod ?? 'HMAC-SHA1';
  const algorithm = method === 'HMAC-SHA256' ? 'sha256' : 'sha1';
  return new OAuth({
    consumer: { key: consumer.key, secret: consumer.secret },
    signature_method: method,
    hash_function: (base, key) => createHmac(algorithm, key).update(base).digest('base64'),
    ...(options.realm === undefined ? {} : { realm: options.realm }),
  });
}

/**
 * Returns a function that signs requests with OAuth 1.0a (RFC 5849, HMAC-SHA1 by default) and
 * yields the `Authorization: OAuth ...` header value. The token is the user's access token (or
 * a request token during the authorization dance); omit it for two-legged requests.
 *
 * @example
 * const sign = oauth1Signer({ key, secret }, { key: account.access_token, secret: account.access_secret });
 * await fetch(url, { headers: { Authorization: sign({ method: 'GET', url }) } });
 */
export function oauth1Signer(
  consumer: OAuth1Consumer,
  token?: OAuth1Token,
  options: OAuth1SignerOptions = {},
): OAuth1Signer {
  const client = oauth1Client(consumer, options);
  return (request) => {
    // Parse the query ourselves: oauth-1.0a would read `+` in a query as a plus, not a space.
    const url = new URL(request.url);
    const params: Record<string, string | string[]> = {};
    const add = (key: string, value: string) => {
      const existing = params[key];
      params[key] =
        existing === undefined ? value : [...(Array.isArray(existing) ? existing : [existing]), value];
    };
    for (const [key, value] of url.searchParams) add(key, value);
    const form =
      request.form instanceof URLSearchParams ? request.form : new URLSearchParams(request.form ?? {});
    for (const [key, value] of form) add(key, value);
    const extra = request.oauthParams ?? {};
    for (const [key, value] of Object.entries(extra)) add(key, value);
    const data = client.authorize(
      { method: request.method.toUpperCase(), url: `${url.origin}${url.pathname}`, data: params },
      token ? { key: token.key, secret: token.secret } : undefined,
    );
    // oauth-1.0a only puts its own oauth_* fields in the header; add the signed extras.
    return client.toHeader({ ...data, ...extra }).Authorization;
  };
}
