import { oauth1Signer, type OAuth1SignatureMethod } from '../oauth/oauth1-signer.js';

/** What an auth builder sees of an outgoing request. */
export interface UpstreamAuthRequest {
  method: string;
  url: URL;
  /** The form body, when the request sends `application/x-www-form-urlencoded`. */
  form?: URLSearchParams;
}

/**
 * How `createUpstream` authenticates its requests. Built by {@link bearer}, {@link basic},
 * {@link oauth1Auth} or {@link header}; `headers` is called for every attempt.
 */
export interface UpstreamAuth {
  /** Credential values, redacted from every error message. */
  readonly secrets: readonly string[];
  headers(request: UpstreamAuthRequest): Record<string, string>;
}

/** `Authorization: Bearer <token>`. */
export function bearer(token: string): UpstreamAuth {
  return { secrets: [token], headers: () => ({ Authorization: `Bearer ${token}` }) };
}

/** HTTP basic authentication: `Authorization: Basic base64(user:password)`. */
export function basic(user: string, password: string): UpstreamAuth {
  const encoded = Buffer.from(`${user}:${password}`).toString('base64');
  return { secrets: [password, encoded], headers: () => ({ Authorization: `Basic ${encoded}` }) };
}

/** Credentials for {@link oauth1Auth}. */
export interface OAuth1Credentials {
  consumerKey: string;
  consumerSecret: string;
  /** The user's access token (`account.access_token`). */
  token: string;
  /** The user's access token secret (`account.access_secret`). */
  tokenSecret: string;
  /** Default `HMAC-SHA1`. */
  signatureMethod?: OAuth1SignatureMethod;
  realm?: string;
}

/**
 * OAuth 1.0a: signs every attempt (fresh nonce and timestamp) over the method, the URL with its
 * query and any form body, and sends `Authorization: OAuth ...`.
 */
export function oauth1Auth(credentials: OAuth1Credentials): UpstreamAuth {
  const sign = oauth1Signer(
    { key: credentials.consumerKey, secret: credentials.consumerSecret },
    { key: credentials.token, secret: credentials.tokenSecret },
    {
      ...(credentials.signatureMethod ? { signatureMethod: credentials.signatureMethod } : {}),
      ...(credentials.realm === undefined ? {} : { realm: credentials.realm }),
    },
  );
  return {
    secrets: [credentials.consumerSecret, credentials.token, credentials.tokenSecret],
    headers: (request) => ({
      Authorization: sign({
        method: request.method,
        url: request.url.toString(),
        ...(request.form ? { form: request.form } : {}),
      }),
    }),
  };
}

/** Alias of {@link oauth1Auth}, for `createUpstream({ auth: oauth1({...}) })` within this module. */
export const oauth1 = oauth1Auth;

/** Any single header, e.g. `header('X-Api-Key', account.apiKey)`. The value is treated as secret. */
export function header(name: string, value: string): UpstreamAuth {
  return { secrets: [value], headers: () => ({ [name]: value }) };
}
