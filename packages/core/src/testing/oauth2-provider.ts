// A real OAuth 2 provider on 127.0.0.1 for tests of OAuth apps (oidc-provider, with its built-in
// login and consent pages): authorization code with PKCE required, rotating refresh tokens,
// revocation, and a userinfo endpoint. One set-up for every test that needs a provider, so the
// tests of the OAuth definition and of the hosts that run OAuth sources talk to the same thing.
//
//   const idp = await startOAuth2Provider({ clientId, clientSecret, redirectUri });
//   oauth2({ authorizeUrl: idp.authorizeUrl, tokenUrl: idp.tokenUrl, clientId, clientSecret, ... });
//   const callback = await idp.approve(authorizeAddressFromTheApp); // ?code=…&state=…
//   await idp.close();
//
// oidc-provider is loaded only when a provider starts, so importing `@weft/core/testing` never
// needs it; an app's tests that use this install it as a dev dependency.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InvalidAccountError } from '../errors/errors.js';

export interface OAuth2ProviderOptions {
  /** The one client the provider knows. */
  clientId: string;
  clientSecret: string;
  /** The client's registered callback address; `approve()` stops there by default. */
  redirectUri: string;
  /** Access token lifetime in seconds (default 60: inside the default refresh margin, so every validate refreshes). */
  accessTokenSeconds?: number;
}

export interface OAuth2ProviderUser {
  /** The login given at the provider's page (`ada` unless told). */
  sub: string;
  /** Always `User <sub>`. */
  name: string;
}

export interface LocalOAuth2Provider {
  /** `http://127.0.0.1:<port>`. */
  issuer: string;
  authorizeUrl: string;
  tokenUrl: string;
  userinfoUrl: string;
  revocationUrl: string;
  /**
   * Plays the user's browser: follows the authorize address with cookies, signs in as `login`
   * (default `ada`) and consents, until the provider redirects to `callbackPrefix` (default the
   * registered redirect address). Resolves to that callback address, with its code and state.
   */
  approve(authorizeUrl: string, options?: { login?: string; callbackPrefix?: string }): Promise<URL>;
  /** The signed-in user behind an access token; a refused token is an `InvalidAccountError` (401). */
  userinfo(accessToken: string, signal?: AbortSignal): Promise<OAuth2ProviderUser>;
  close(): Promise<void>;
}

export async function startOAuth2Provider(options: OAuth2ProviderOptions): Promise<LocalOAuth2Provider> {
  const { default: Provider } = await import('oidc-provider').catch((error: unknown) => {
    throw new Error(
      `startOAuth2Provider needs the oidc-provider package: install it as a dev dependency (${(error as Error).message})`,
    );
  });
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: options.clientId,
        client_secret: options.clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      },
    ],
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true }, revocation: { enabled: true } },
    issueRefreshToken: async () => true,
    rotateRefreshToken: () => true,
    ttl: {
      AccessToken: options.accessTokenSeconds ?? 60,
      AuthorizationCode: 60,
      RefreshToken: 3600,
      Grant: 3600,
      Session: 3600,
      Interaction: 3600,
      IdToken: 3600,
    },
    claims: { openid: ['sub'], profile: ['name'] },
    findAccount: async (_ctx, sub) => ({
      accountId: sub,
      claims: async () => ({ sub, name: `User ${sub}` }),
    }),
    cookies: { keys: ['weft-test-provider-cookie-key'] },
  });
  server.on('request', provider.callback());

  const userinfoUrl = `${issuer}/me`;
  return {
    issuer,
    authorizeUrl: `${issuer}/auth`,
    tokenUrl: `${issuer}/token`,
    userinfoUrl,
    revocationUrl: `${issuer}/token/revocation`,
    approve: (authorizeUrl, approveOptions = {}) =>
      approve(
        authorizeUrl,
        approveOptions.callbackPrefix ?? options.redirectUri,
        approveOptions.login ?? 'ada',
      ),
    async userinfo(accessToken, signal) {
      const res = await fetch(userinfoUrl, {
        headers: { Authorization: `Bearer ${accessToken}` },
        ...(signal ? { signal } : {}),
      });
      if (res.status === 401) throw new InvalidAccountError('The provider refused the access token');
      if (!res.ok) throw new Error(`userinfo answered ${res.status}`);
      return (await res.json()) as OAuth2ProviderUser;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The browser's part: redirects by hand, a cookie jar, the login form, then the consent form. */
async function approve(authorizeUrl: string, callbackPrefix: string, login: string): Promise<URL> {
  const jar = new Map<string, string>();
  let url = authorizeUrl;
  let body: string | undefined;
  for (let step = 0; step < 20; step++) {
    const res = await fetch(url, {
      method: body ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(body ? { body } : {}),
    });
    for (const cookie of res.headers.getSetCookie()) {
      const pair = cookie.split(';')[0] ?? '';
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    if (res.status >= 300 && res.status < 400) {
      const location = new URL(res.headers.get('location') ?? '', url);
      if (location.href.startsWith(callbackPrefix)) return location;
      url = location.href;
      body = undefined;
      continue;
    }
    const html = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (!action)
      throw new Error(`No form on the provider's page (HTTP ${res.status}): ${html.slice(0, 500)}`);
    body = html.includes('name="login"')
      ? new URLSearchParams({ prompt: 'login', login, password: 'any' }).toString()
      : new URLSearchParams({ prompt: 'consent' }).toString();
    url = new URL(action, url).href;
  }
  throw new Error('The authorization did not reach the callback');
}
