import type { AuthContext, AuthenticationDefinition, ValidateResult } from '../define/authentication.js';
import { InvalidAccountError, OAuthError } from '../errors/errors.js';
import type { OAuth1Credentials } from '../upstream/auth.js';
import { type OAuth1SignatureMethod, type OAuth1Signer, oauth1Signer } from './oauth1-signer.js';
import {
  type AccountInfo,
  credential,
  describeProviderError,
  providerUnavailable,
  raceSignal,
  runAccountHook,
  OAUTH_FIELD,
} from './shared.js';

/**
 * An OAuth 1 account as the service stores it: the access token and its secret, plus whatever
 * else the provider returned with them (e.g. `user_id`, `screen_name`).
 */
export interface OAuth1Account {
  access_token: string;
  access_secret: string;
  [field: string]: unknown;
}

/** Options of {@link oauth1}. */
export interface OAuth1Options {
  /** Title in the account form; default `OAuth v1 Authentication`. */
  name?: string;
  description?: string;
  /** Where a request token is obtained (signed POST). */
  requestTokenUrl: string;
  /** Where the user is sent to approve; `oauth_token` is appended. */
  authorizeUrl: string;
  /** Where the request token and verifier are exchanged for an access token (signed POST). */
  accessTokenUrl: string;
  /** Default `HMAC-SHA1`. */
  signatureMethod?: OAuth1SignatureMethod;
  /** The consumer key; default: read from the environment variable `consumerKeyEnv` at request time. */
  consumerKey?: string;
  /** The consumer secret; default: read from the environment variable `consumerSecretEnv` at request time. */
  consumerSecret?: string;
  /** Default `OAUTH1_CONSUMER_KEY`. */
  consumerKeyEnv?: string;
  /** Default `OAUTH1_CONSUMER_SECRET`. */
  consumerSecretEnv?: string;
  /** Time limit of calls to the provider in ms; default 15000. */
  timeoutMs?: number;
  /**
   * Looks up the account at the provider: returns its title (`name`) and any extra fields to
   * store. Default: `{ name: 'OAuth account' }`.
   */
  account?: (ctx: { token: string; tokenSecret: string; signal: AbortSignal }) => Promise<AccountInfo>;
}

/** Input of the authorize step (`POST /oauth1/v1/authorize`). */
export interface OAuth1AuthorizeInput {
  /** The service's callback address, with its `state` query parameter. */
  callback_uri: string;
}

/** Answer of the authorize step: where to send the user, and the request token and secret. */
export interface OAuth1AuthorizeResult {
  redirect_uri: string;
  token: string;
  secret: string;
}

/** Input of the token step (`POST /oauth1/v1/access_token`). */
export interface OAuth1AccessTokenInput {
  /** The request token from the authorize step. */
  access_token: string;
  /** The request token secret from the authorize step. */
  access_secret: string;
  oauth_verifier: string;
}

/** The OAuth 1 authentication returned by {@link oauth1}; the router drives its steps. */
export interface OAuth1Authentication extends AuthenticationDefinition<OAuth1Account> {
  readonly kind: 'oauth1';
  readonly id: 'oauth';
  readonly options: Readonly<OAuth1Options>;
  /** Obtains a request token and builds the address where the user approves it. */
  authorize(input: OAuth1AuthorizeInput, ctx?: { signal?: AbortSignal }): Promise<OAuth1AuthorizeResult>;
  /** Exchanges the approved request token for an access token. Throws `OAuthError` (401) when refused. */
  accessToken(input: OAuth1AccessTokenInput, ctx?: { signal?: AbortSignal }): Promise<OAuth1Account>;
  /** A signer for requests on behalf of the account. */
  signer(account: OAuth1Account): OAuth1Signer;
  /** Credentials for `createUpstream({ auth: oauth1Auth(definition.upstreamCredentials(account)) })`. */
  upstreamCredentials(account: OAuth1Account): OAuth1Credentials;
  validate(account: OAuth1Account, ctx: AuthContext): Promise<ValidateResult>;
}

/**
 * OAuth 1.0a (three-legged, HMAC-SHA1 by default) for the app's descriptor. Mount its endpoints
 * with `createOAuthRouter`. Consumer key and secret come from `OAUTH1_CONSUMER_KEY` /
 * `OAUTH1_CONSUMER_SECRET` unless given.
 *
 * @example
 * auth.oauth1({
 *   requestTokenUrl: 'https://provider.example/oauth/request_token',
 *   authorizeUrl: 'https://provider.example/oauth/authorize',
 *   accessTokenUrl: 'https://provider.example/oauth/access_token',
 * })
 */
export function oauth1(options: OAuth1Options): OAuth1Authentication {
  for (const key of ['requestTokenUrl', 'authorizeUrl', 'accessTokenUrl'] as const) {
    try {
      new URL(options[key]);
    } catch {
      throw new TypeError(`oauth1(): ${key} is not an absolute URL: ${options[key]}`);
    }
  }
  const timeoutMs = options.timeoutMs ?? 15_000;
  const signerOptions = options.signatureMethod ? { signatureMethod: options.signatureMethod } : {};

  const consumer = () => ({
    key: credential(
      options.consumerKey,
      options.consumerKeyEnv ?? 'OAUTH1_CONSUMER_KEY',
      'OAuth 1 consumer key',
    ),
    secret: credential(
      options.consumerSecret,
      options.consumerSecretEnv ?? 'OAUTH1_CONSUMER_SECRET',
      'OAuth 1 consumer secret',
    ),
  });

  /** A signed, form-encoded POST to one of the provider's token endpoints. */
  const signedPost = async (
    step: string,
    url: string,
    sign: OAuth1Signer,
    oauthParams: Record<string, string>,
    secrets: string[],
    signal: AbortSignal | undefined,
  ): Promise<URLSearchParams> => {
    const timeout = AbortSignal.timeout(timeoutMs);
    let response: Response;
    try {
      response = await raceSignal(
        fetch(url, {
          method: 'POST',
          headers: {
            Authorization: sign({ method: 'POST', url, oauthParams }),
            'Content-Type': 'application/x-www-form-urlencoded',
            Accept: 'application/x-www-form-urlencoded, application/json;q=0.9',
          },
          body: '',
          signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        }),
        signal,
      );
    } catch (error) {
      if (signal?.aborted) throw error;
      throw providerUnavailable(step, timeout.aborted ? 'timeout' : 'connection failed');
    }
    const text = await response.text();
    if (response.status >= 500) throw providerUnavailable(step, `status ${response.status}`);
    if (!response.ok) {
      const detail = describeProviderError(text, secrets);
      throw new OAuthError(
        `${step}: the OAuth provider refused (${response.status}${detail ? `: ${detail}` : ''})`,
      );
    }
    const type = response.headers.get('content-type') ?? '';
    if (type.includes('json')) {
      try {
        const parsed = JSON.parse(text) as Record<string, unknown>;
        return new URLSearchParams(
          Object.entries(parsed).flatMap(([k, v]): [string, string][] =>
            v === null || typeof v === 'object' ? [] : [[k, String(v)]],
          ),
        );
      } catch {
        throw new OAuthError(`${step}: the OAuth provider answered with invalid JSON`);
      }
    }
    return new URLSearchParams(text);
  };

  const accountInfo = async (account: OAuth1Account, signal: AbortSignal): Promise<AccountInfo> => {
    if (!options.account) return { name: 'OAuth account' };
    const hook = options.account;
    return runAccountHook(() =>
      hook({ token: account.access_token, tokenSecret: account.access_secret, signal }),
    );
  };

  const definition: OAuth1Authentication = {
    kind: 'oauth1',
    id: 'oauth',
    name: options.name ?? 'OAuth v1 Authentication',
    ...(options.description === undefined ? {} : { description: options.description }),
    fields: [OAUTH_FIELD],
    secretKeys: ['access_token', 'access_secret', 'token_secret'],
    options,

    async authorize({ callback_uri }, ctx = {}) {
      const c = consumer();
      const step = 'Obtaining an OAuth request token failed';
      const form = await signedPost(
        step,
        options.requestTokenUrl,
        oauth1Signer(c, undefined, signerOptions),
        { oauth_callback: callback_uri },
        [c.secret],
        ctx.signal,
      );
      const token = form.get('oauth_token');
      const secret = form.get('oauth_token_secret');
      if (!token || !secret) throw new OAuthError(`${step}: the provider answered without oauth_token`);
      if (form.has('oauth_callback_confirmed') && form.get('oauth_callback_confirmed') !== 'true') {
        throw new OAuthError(`${step}: the provider did not confirm the callback address`);
      }
      const redirect = new URL(options.authorizeUrl);
      redirect.searchParams.set('oauth_token', token);
      return { redirect_uri: redirect.toString(), token, secret };
    },

    async accessToken({ access_token, access_secret, oauth_verifier }, ctx = {}) {
      const c = consumer();
      const step = 'Exchanging the OAuth request token failed';
      const form = await signedPost(
        step,
        options.accessTokenUrl,
        oauth1Signer(c, { key: access_token, secret: access_secret }, signerOptions),
        { oauth_verifier },
        [c.secret, access_secret, oauth_verifier],
        ctx.signal,
      );
      const token = form.get('oauth_token');
      const secret = form.get('oauth_token_secret');
      if (!token || !secret) throw new OAuthError(`${step}: the provider answered without oauth_token`);
      const account: OAuth1Account = { access_token: token, access_secret: secret };
      for (const [key, value] of form) {
        if (key !== 'oauth_token' && key !== 'oauth_token_secret' && !(key in account)) account[key] = value;
      }
      return account;
    },

    signer(account) {
      return oauth1Signer(
        consumer(),
        { key: account.access_token, secret: account.access_secret },
        signerOptions,
      );
    },

    upstreamCredentials(account) {
      const c = consumer();
      return {
        consumerKey: c.key,
        consumerSecret: c.secret,
        token: account.access_token,
        tokenSecret: account.access_secret,
        ...(options.signatureMethod ? { signatureMethod: options.signatureMethod } : {}),
      };
    },

    async validate(account, ctx) {
      if (!account || typeof account.access_token !== 'string' || typeof account.access_secret !== 'string') {
        throw new InvalidAccountError('The OAuth account has no access token; connect the account again');
      }
      return accountInfo(account, ctx.signal);
    },
  };
  return definition;
}
