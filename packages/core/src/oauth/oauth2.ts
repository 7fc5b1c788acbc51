import { createHash, createHmac } from 'node:crypto';
import { AuthorizationCode, type AccessToken, type ModuleOptions, type Token } from 'simple-oauth2';
import type { AuthContext, AuthenticationDefinition, ValidateResult } from '../define/authentication.js';
import { InvalidAccountError, OAuthError } from '../errors/errors.js';
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
 * An OAuth 2 account as the service stores it: what `/oauth2/v1/access_token` returned, plus
 * whatever `/validate` merged later. `expire_on` and `expires_on` carry the same ISO timestamp.
 */
export interface OAuth2Account {
  access_token: string;
  refresh_token?: string;
  token_type?: string;
  expire_on?: string;
  expires_on?: string;
  [field: string]: unknown;
}

/** Options of {@link oauth2}. */
export interface OAuth2Options {
  /** Title in the account form; default `OAuth v2 Authentication`. */
  name?: string;
  description?: string;
  /** The provider's authorization endpoint, e.g. `https://github.com/login/oauth/authorize`. */
  authorizeUrl: string;
  /** The provider's token endpoint (code exchange and refresh). */
  tokenUrl: string;
  scopes?: string[];
  /** Default `' '`. */
  scopeSeparator?: string;
  /**
   * PKCE (S256), default `true`. The code verifier is derived, not stored (see docs/oauth.md):
   * `true` or `'callback_uri'` derive it from the callback address, which the service sends at both
   * steps; `'state'` derives it from the `state`, and needs a service that sends `state` back at
   * the token step (the spec's token request does not carry it).
   */
  pkce?: boolean | 'state' | 'callback_uri';
  /** Extra query parameters of the authorize address (e.g. `{ access_type: 'offline', prompt: 'consent' }`). */
  authorizeParams?: Record<string, string>;
  /**
   * Query parameters of the provider's callback to keep in the account, e.g. `['realmId']` for
   * QuickBooks (the company the user chose), `['accounts-server']` for Zoho (the region). The
   * service forwards the callback's parameters to the token step; those named here are stored with
   * the tokens and come back with the account on every later call.
   */
  callbackParams?: string[];
  /** The client id; default: read from the environment variable `clientIdEnv` at request time. */
  clientId?: string;
  /** The client secret; default: read from the environment variable `clientSecretEnv` at request time. */
  clientSecret?: string;
  /** Default `OAUTH2_CLIENT_ID`. */
  clientIdEnv?: string;
  /** Default `OAUTH2_CLIENT_SECRET`. */
  clientSecretEnv?: string;
  /** How the client authenticates at the token endpoint: HTTP basic (`header`, default) or in the `body`. */
  clientAuthentication?: 'header' | 'body';
  /** `/validate` refreshes the token when it expires within this many seconds; default 300. */
  refreshMarginSeconds?: number;
  /** Time limit of calls to the token endpoint in ms; default 15000. */
  timeoutMs?: number;
  /**
   * Looks up the account at the provider: returns its title (`name`) and any extra fields to
   * store (e.g. an upstream `accountId`). Throw `InvalidAccountError` (or let an upstream 401
   * through) when the token is refused. Default: `{ name: 'OAuth account' }`.
   */
  account?: (ctx: { accessToken: string; signal: AbortSignal }) => Promise<AccountInfo>;
  /** The clock, for tests. */
  now?: () => Date;
}

/** Input of the authorize step (`POST /oauth2/v1/authorize`). */
export interface OAuth2AuthorizeInput {
  callback_uri: string;
  state: string;
}

/** Input of the token step (`POST /oauth2/v1/access_token`). */
export interface OAuth2AccessTokenInput {
  callback_uri: string;
  code: string;
  /** The `state` of the authorize step, when the service sends it back. */
  state?: string | undefined;
  /** The other query parameters of the provider's callback, as the service forwards them. */
  params?: Record<string, string> | undefined;
}

/** Account data returned by the token step and, refreshed, by `/validate`. */
export interface OAuth2TokenData {
  access_token: string;
  refresh_token?: string;
  token_type?: string;
  expire_on?: string;
  expires_on?: string;
}

/** The OAuth 2 authentication returned by {@link oauth2}; the router drives its steps. */
export interface OAuth2Authentication extends AuthenticationDefinition<OAuth2Account> {
  readonly kind: 'oauth2';
  readonly id: 'oauth2';
  readonly options: Readonly<OAuth2Options>;
  /** Builds the provider's authorize address for the user. */
  authorize(input: OAuth2AuthorizeInput): Promise<{ redirect_uri: string }>;
  /** Exchanges the authorization code for tokens. Throws `OAuthError` (401) when refused. */
  accessToken(input: OAuth2AccessTokenInput, ctx?: { signal?: AbortSignal }): Promise<OAuth2TokenData>;
  /** Refreshes the account's tokens. Throws `InvalidAccountError` (401) when the refresh token is refused. */
  refresh(account: OAuth2Account, ctx?: { signal?: AbortSignal }): Promise<OAuth2TokenData>;
  validate(account: OAuth2Account, ctx: AuthContext): Promise<ValidateResult>;
}

/** base64url without padding. */
function base64url(buffer: Buffer): string {
  return buffer.toString('base64url');
}

/**
 * The PKCE code verifier for a flow, derived so that any replica finds it again without storage:
 * `base64url(HMAC-SHA256(key, 'weft-pkce:' + input))`, where the key is `WEFT_OAUTH_PKCE_SECRET`
 * or else the client secret, and `input` the flow's `state` (or callback address).
 */
export function pkceVerifier(key: string, input: string): string {
  return base64url(createHmac('sha256', key).update(`weft-pkce:${input}`).digest());
}

/** The S256 code challenge of a verifier. */
export function pkceChallenge(verifier: string): string {
  return base64url(createHash('sha256').update(verifier).digest());
}

function splitUrl(url: string, option: string): { host: string; path: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`oauth2(): ${option} is not an absolute URL: ${url}`);
  }
  return { host: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
}

interface Boomish {
  isBoom?: boolean;
  output?: { statusCode?: number };
  data?: { isResponseError?: boolean; payload?: unknown; res?: { statusCode?: number } } | null;
  message?: string;
}

/**
 * OAuth 2 (authorization code grant, PKCE by default) for the app's descriptor. Mount its
 * endpoints with `createOAuthRouter`; `/validate` refreshes the token when it is about to expire.
 * Client id and secret come from `OAUTH2_CLIENT_ID` / `OAUTH2_CLIENT_SECRET` unless given.
 *
 * @example
 * auth.oauth2({
 *   authorizeUrl: 'https://provider.example/oauth/authorize',
 *   tokenUrl: 'https://provider.example/oauth/token',
 *   scopes: ['read'],
 *   account: async ({ accessToken, signal }) => ({ name: (await me(accessToken, signal)).login }),
 * })
 */
/** Keys of the token data a kept callback parameter must not replace. */
const TOKEN_KEYS = new Set(['access_token', 'refresh_token', 'token_type', 'expire_on', 'expires_on']);

function keptParams(names: unknown): string[] {
  if (names === undefined) return [];
  if (!Array.isArray(names)) throw new TypeError('oauth2(): callbackParams must be an array of names');
  names.forEach((name, i) => {
    if (typeof name !== 'string' || name === '')
      throw new TypeError(`oauth2(): callbackParams[${i}] must be a non-empty string`);
    if (TOKEN_KEYS.has(name) || name === 'code' || name === 'state')
      throw new TypeError(
        `oauth2(): callbackParams[${i}] "${name}" would replace the token step's own value`,
      );
  });
  return names as string[];
}

export function oauth2(options: OAuth2Options): OAuth2Authentication {
  const authorizeAt = splitUrl(options.authorizeUrl, 'authorizeUrl');
  const kept = keptParams(options.callbackParams);
  const tokenAt = splitUrl(options.tokenUrl, 'tokenUrl');
  const pkceMode = options.pkce === undefined || options.pkce === true ? 'callback_uri' : options.pkce;
  const marginMs = (options.refreshMarginSeconds ?? 300) * 1000;
  const timeout = options.timeoutMs ?? 15_000;
  const now = options.now ?? (() => new Date());

  const clientCredentials = () => ({
    id: credential(options.clientId, options.clientIdEnv ?? 'OAUTH2_CLIENT_ID', 'OAuth 2 client id'),
    secret: credential(
      options.clientSecret,
      options.clientSecretEnv ?? 'OAUTH2_CLIENT_SECRET',
      'OAuth 2 client secret',
    ),
  });

  const client = (creds: { id: string; secret: string }) => {
    const config: ModuleOptions = {
      client: creds,
      auth: {
        tokenHost: tokenAt.host,
        tokenPath: tokenAt.path,
        authorizeHost: authorizeAt.host,
        authorizePath: authorizeAt.path,
      },
      options: {
        scopeSeparator: options.scopeSeparator ?? ' ',
        authorizationMethod: options.clientAuthentication ?? 'header',
      },
    };
    return new AuthorizationCode(config);
  };

  const verifierFor = (secret: string, input: string) => {
    const key = process.env.WEFT_OAUTH_PKCE_SECRET || secret;
    return pkceVerifier(key, input);
  };

  const tokenData = (token: Token, previous?: OAuth2Account): OAuth2TokenData => {
    const accessToken = token.access_token;
    if (typeof accessToken !== 'string' || accessToken === '') {
      throw new OAuthError('The OAuth provider answered without an access_token');
    }
    const out: OAuth2TokenData = { access_token: accessToken };
    const refreshToken =
      typeof token.refresh_token === 'string' && token.refresh_token !== ''
        ? token.refresh_token
        : previous?.refresh_token;
    if (refreshToken) out.refresh_token = refreshToken;
    if (typeof token.token_type === 'string') out.token_type = token.token_type;
    if (typeof token.expires_in === 'number' || typeof token.expires_in === 'string') {
      const seconds = Number(token.expires_in);
      if (Number.isFinite(seconds)) {
        const expiry = new Date(now().getTime() + seconds * 1000).toISOString();
        out.expire_on = expiry;
        out.expires_on = expiry;
      }
    }
    return out;
  };

  /** Maps a simple-oauth2 (wreck/Boom) failure to the protocol's errors. */
  const providerError = (error: unknown, step: string, secrets: string[], refusal: (m: string) => Error) => {
    const boom = error as Boomish;
    if (boom?.data?.isResponseError || (boom?.isBoom && boom.data?.res)) {
      const status = boom.data?.res?.statusCode ?? boom.output?.statusCode ?? 0;
      const detail = describeProviderError(boom.data?.payload, secrets);
      if (status >= 500) return providerUnavailable(step, `status ${status}`);
      return refusal(`${step}: the OAuth provider refused (${status}${detail ? `: ${detail}` : ''})`);
    }
    if (boom?.isBoom) {
      return providerUnavailable(step, boom.output?.statusCode === 504 ? 'timeout' : 'connection failed');
    }
    return error;
  };

  const accountInfo = async (accessToken: string, signal: AbortSignal): Promise<AccountInfo> => {
    if (!options.account) return { name: 'OAuth account' };
    const hook = options.account;
    return runAccountHook(() => hook({ accessToken, signal }));
  };

  const definition: OAuth2Authentication = {
    kind: 'oauth2',
    id: 'oauth2',
    name: options.name ?? 'OAuth v2 Authentication',
    ...(options.description === undefined ? {} : { description: options.description }),
    fields: [OAUTH_FIELD],
    secretKeys: ['access_token', 'refresh_token'],
    options,

    async authorize({ callback_uri, state }) {
      const creds = clientCredentials();
      const params: Record<string, string> = {
        ...options.authorizeParams,
        redirect_uri: callback_uri,
        state,
      };
      if (options.scopes && options.scopes.length > 0) {
        params.scope = options.scopes.join(options.scopeSeparator ?? ' ');
      }
      if (options.pkce !== false) {
        const verifier = verifierFor(creds.secret, pkceMode === 'state' ? state : callback_uri);
        params.code_challenge = pkceChallenge(verifier);
        params.code_challenge_method = 'S256';
      }
      return { redirect_uri: client(creds).authorizeURL(params) };
    },

    async accessToken({ callback_uri, code, state, params: callback }, ctx = {}) {
      const creds = clientCredentials();
      const params: Record<string, string> = { code, redirect_uri: callback_uri };
      const secrets = [creds.secret, code];
      if (options.pkce !== false) {
        const verifier = verifierFor(creds.secret, pkceMode === 'state' && state ? state : callback_uri);
        params.code_verifier = verifier;
        secrets.push(verifier);
      }
      let token: AccessToken;
      try {
        token = await raceSignal(
          client(creds).getToken(params as unknown as Parameters<AuthorizationCode['getToken']>[0], {
            timeout,
          }),
          ctx.signal,
        );
      } catch (error) {
        throw providerError(
          error,
          'Exchanging the authorization code failed',
          secrets,
          (m) => new OAuthError(m),
        );
      }
      const out: OAuth2TokenData & Record<string, unknown> = { ...tokenData(token.token) };
      for (const name of kept) {
        const value = callback?.[name];
        if (typeof value === 'string') out[name] = value;
      }
      return out;
    },

    async refresh(account, ctx = {}) {
      const refreshToken = account.refresh_token;
      if (!refreshToken)
        throw new InvalidAccountError('The OAuth token has expired and there is no refresh token');
      const creds = clientCredentials();
      const secrets = [creds.secret, refreshToken, account.access_token];
      let token: AccessToken;
      try {
        const current = client(creds).createToken({
          access_token: account.access_token,
          refresh_token: refreshToken,
        });
        token = await raceSignal(current.refresh({}, { timeout }), ctx.signal);
      } catch (error) {
        throw providerError(
          error,
          'Refreshing the OAuth token failed',
          secrets,
          (m) => new InvalidAccountError(`${m}; connect the account again`),
        );
      }
      return tokenData(token.token, account);
    },

    async validate(account, ctx) {
      if (!account || typeof account.access_token !== 'string' || account.access_token === '') {
        throw new InvalidAccountError('The OAuth account has no access_token; connect the account again');
      }
      const expiry = Date.parse(String(account.expire_on ?? account.expires_on ?? ''));
      const dueForRefresh = !Number.isNaN(expiry) && expiry - now().getTime() <= marginMs;
      if (dueForRefresh) {
        if (!account.refresh_token) {
          if (expiry <= now().getTime()) {
            throw new InvalidAccountError('The OAuth token has expired and there is no refresh token');
          }
        } else {
          const fresh = await definition.refresh(account, { signal: ctx.signal });
          const info = await accountInfo(fresh.access_token, ctx.signal);
          return { ...info, ...fresh };
        }
      }
      try {
        return await accountInfo(account.access_token, ctx.signal);
      } catch (error) {
        // The provider may revoke early: one refresh, then ask again.
        if (!(error instanceof InvalidAccountError) || !account.refresh_token) throw error;
        const fresh = await definition.refresh(account, { signal: ctx.signal });
        const info = await accountInfo(fresh.access_token, ctx.signal);
        return { ...info, ...fresh };
      }
    },
  };
  return definition;
}
