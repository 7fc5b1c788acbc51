import express, { type NextFunction, type Request, type Response } from 'express';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AuthContext } from '../define/authentication.js';
import { sendError, toErrorResponse } from '../errors/error-response.js';
import { InvalidAccountError, type WeftError } from '../errors/errors.js';
import { silentLogger } from '../logging/logger.js';
import { type LocalOAuth2Provider, startOAuth2Provider } from '../testing/oauth2-provider.js';
import { type OAuth2Options, oauth2, pkceChallenge, pkceVerifier } from './oauth2.js';
import { createOAuthRouter } from './router.js';

const CLIENT_ID = 'weft-test-client';
const CLIENT_SECRET = 'weft-test-client-secret-a1b2c3d4e5f6a7b8c9d0';
const CALLBACK = 'http://127.0.0.1:9/oauth/callback';

let idp: LocalOAuth2Provider;
let issuer: string;

beforeAll(async () => {
  idp = await startOAuth2Provider({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    redirectUri: CALLBACK,
  });
  issuer = idp.issuer;
});

afterAll(async () => {
  await idp?.close();
});

afterEach(() => {
  delete process.env.WEFT_OAUTH_PKCE_SECRET;
  delete process.env.OAUTH2_CLIENT_ID;
  delete process.env.OAUTH2_CLIENT_SECRET;
  delete process.env.MY_APP_CLIENT_ID;
  delete process.env.MY_APP_CLIENT_SECRET;
});

/** Reads the user's name from the provider's userinfo endpoint; a 401 there is an invalid account. */
async function userinfo({ accessToken, signal }: { accessToken: string; signal: AbortSignal }) {
  const claims = await idp.userinfo(accessToken, signal);
  return { name: claims.name, accountId: claims.sub };
}

function definition(overrides: Partial<OAuth2Options> = {}) {
  return oauth2({
    authorizeUrl: `${issuer}/auth`,
    tokenUrl: `${issuer}/token`,
    scopes: ['openid', 'profile'],
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    account: userinfo,
    ...overrides,
  });
}

/** The host app core builds: JSON bodies, the OAuth router, the protocol's error answer. */
function hostApp(auth: ReturnType<typeof oauth2>) {
  const app = express();
  app.use(express.json());
  const router = createOAuthRouter([auth]);
  if (router) app.use(router);
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) =>
    sendError(res, toErrorResponse(err)),
  );
  return app;
}

const ctx = (): AuthContext => ({ signal: new AbortController().signal, log: silentLogger });

/** Plays the user's browser at the provider until it redirects to CALLBACK. */
const approveInBrowser = (authorizeUrl: string) => idp.approve(authorizeUrl);

async function connect(auth = definition(), state = 'state-123', sendState = true) {
  const app = hostApp(auth);
  const authorize = await request(app).post('/oauth2/v1/authorize').send({ callback_uri: CALLBACK, state });
  expect(authorize.status).toBe(200);
  const callback = await approveInBrowser(authorize.body.redirect_uri);
  expect(callback.searchParams.get('state')).toBe(state);
  const code = callback.searchParams.get('code');
  expect(code).toBeTruthy();
  return request(app)
    .post('/oauth2/v1/access_token')
    .send({ fields: { callback_uri: CALLBACK }, code, ...(sendState ? { state } : {}) });
}

describe('oauth2() definition', () => {
  it('refuses callbackParams that are not names, or that would replace a token value', () => {
    const base = { authorizeUrl: 'https://p.example/a', tokenUrl: 'https://p.example/t' };
    expect(() => oauth2({ ...base, callbackParams: [''] })).toThrow(
      'oauth2(): callbackParams[0] must be a non-empty string',
    );
    expect(() => oauth2({ ...base, callbackParams: ['realmId', 'access_token'] })).toThrow(
      `oauth2(): callbackParams[1] "access_token" would replace the token step's own value`,
    );
    expect(() => oauth2({ ...base, callbackParams: 'realmId' as unknown as string[] })).toThrow(
      'oauth2(): callbackParams must be an array of names',
    );
  });

  it('describes itself for the descriptor', () => {
    const auth = oauth2({ authorizeUrl: 'https://p.example/a', tokenUrl: 'https://p.example/t' });
    expect(auth.kind).toBe('oauth2');
    expect(auth.id).toBe('oauth2');
    expect(auth.name).toBe('OAuth v2 Authentication');
    expect(auth.secretKeys).toEqual(['access_token', 'refresh_token']);
    expect(auth.fields).toEqual([
      {
        id: 'callback_uri',
        name: 'OAuth',
        title: 'callback_uri',
        type: 'oauth',
        description: 'OAuth post-auth redirect URI',
      },
    ]);
  });
});

describe('OAuth 2 against oidc-provider', () => {
  it('builds the authorize address with state, S256 PKCE, scopes and the callback', async () => {
    const res = await request(hostApp(definition()))
      .post('/oauth2/v1/authorize')
      .send({ callback_uri: CALLBACK, state: 'st-1' });
    expect(res.status).toBe(200);
    const url = new URL(res.body.redirect_uri);
    expect(`${url.origin}${url.pathname}`).toBe(`${issuer}/auth`);
    expect(url.searchParams.get('client_id')).toBe(CLIENT_ID);
    expect(url.searchParams.get('redirect_uri')).toBe(CALLBACK);
    expect(url.searchParams.get('response_type')).toBe('code');
    expect(url.searchParams.get('state')).toBe('st-1');
    expect(url.searchParams.get('scope')).toBe('openid profile');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toBe(pkceChallenge(pkceVerifier(CLIENT_SECRET, CALLBACK)));
    expect(res.body.redirect_uri).not.toContain(CLIENT_SECRET);
  });

  it('uses WEFT_OAUTH_PKCE_SECRET as the verifier key when set', async () => {
    process.env.WEFT_OAUTH_PKCE_SECRET = 'pkce-key-for-tests';
    const res = await request(hostApp(definition()))
      .post('/oauth2/v1/authorize')
      .send({ callback_uri: CALLBACK, state: 's' });
    const challenge = new URL(res.body.redirect_uri).searchParams.get('code_challenge');
    expect(challenge).toBe(pkceChallenge(pkceVerifier('pkce-key-for-tests', CALLBACK)));
  });

  it('exchanges the code for tokens (PKCE verified by the provider)', async () => {
    const res = await connect();
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      access_token: expect.any(String),
      refresh_token: expect.any(String),
      token_type: 'Bearer',
    });
    expect(res.body.expire_on).toBe(res.body.expires_on);
    const expiry = Date.parse(res.body.expire_on);
    expect(expiry).toBeGreaterThan(Date.now());
    expect(expiry).toBeLessThanOrEqual(Date.now() + 61_000);
  });

  it('by default completes the flow with the verifier bound to the callback address, no state at the token step', async () => {
    const res = await connect(definition(), 'st-cb', false);
    expect(res.status).toBe(200);
    expect(res.body.access_token).toEqual(expect.any(String));
  });

  it('keeps the callback parameters it names (as the service forwards them) with the tokens', async () => {
    const app = hostApp(definition({ callbackParams: ['realmId'] }));
    const authorize = await request(app)
      .post('/oauth2/v1/authorize')
      .send({ callback_uri: CALLBACK, state: 'st-realm' });
    const code = (await approveInBrowser(authorize.body.redirect_uri)).searchParams.get('code');
    const res = await request(app)
      .post('/oauth2/v1/access_token')
      .send({
        fields: { callback_uri: CALLBACK, state: 'st-realm' },
        code,
        state: 'st-realm',
        realmId: '9130-3561',
        location: 'us',
      });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ access_token: expect.any(String), realmId: '9130-3561' });
    // Only the parameters it names: not `location`, not the code or the state.
    expect(res.body).not.toHaveProperty('location');
    expect(res.body).not.toHaveProperty('code');
    expect(res.body).not.toHaveProperty('state');
  });

  it("with pkce: 'state', a token step without state fails PKCE with 401", async () => {
    const res = await connect(definition({ pkce: 'state' }), 'st-lost', false);
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/refused \(400: invalid_grant \(grant request is invalid\)\)/);
  });

  it("with pkce: 'state', reads state from fields.state too", async () => {
    const auth = definition({ pkce: 'state' });
    const app = hostApp(auth);
    const authorize = await request(app)
      .post('/oauth2/v1/authorize')
      .send({ callback_uri: CALLBACK, state: 'st-f' });
    const code = (await approveInBrowser(authorize.body.redirect_uri)).searchParams.get('code');
    const res = await request(app)
      .post('/oauth2/v1/access_token')
      .send({ fields: { callback_uri: CALLBACK, state: 'st-f' }, code });
    expect(res.status).toBe(200);
  });

  it('answers 401 {message} without secrets when the provider refuses the code', async () => {
    const res = await request(hostApp(definition()))
      .post('/oauth2/v1/access_token')
      .send({ fields: { callback_uri: CALLBACK }, code: 'not-a-real-code-0123456789', state: 'x' });
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(
      /Exchanging the authorization code failed: the OAuth provider refused \(400: invalid_grant/,
    );
    expect(res.body.message).not.toContain(CLIENT_SECRET);
    expect(res.body.message).not.toContain('not-a-real-code-0123456789');
  });

  it('validate refreshes a token about to expire and returns the rotated refresh token', async () => {
    const auth = definition();
    const account = (await connect(auth)).body;
    // The access token lives 60 s, inside the default 300 s margin: validate refreshes.
    const result = await auth.validate(account, ctx());
    expect(result.name).toBe('User ada');
    expect(result.accountId).toBe('ada');
    expect(result.access_token).toEqual(expect.any(String));
    expect(result.access_token).not.toBe(account.access_token);
    expect(result.refresh_token).toEqual(expect.any(String));
    expect(result.refresh_token).not.toBe(account.refresh_token);
    expect(result.expire_on).toBe(result.expires_on);

    // The old refresh token was rotated away: using it again is refused (401).
    const stale = await auth.validate(account, ctx()).catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(InvalidAccountError);
    expect((stale as WeftError).status).toBe(401);
    expect((stale as WeftError).message).toMatch(/Refreshing the OAuth token failed/);
    expect((stale as WeftError).message).not.toContain(account.refresh_token);
  });

  it('validate refreshes an expired token, reading expires_on when expire_on is absent', async () => {
    const auth = definition({ now: () => new Date(Date.now() + 3600_000) });
    const { expire_on: _drop, ...account } = (await connect(auth)).body;
    const result = await auth.validate(account, ctx());
    expect(result.access_token).not.toBe(account.access_token);
  });

  it('validate answers {name} without refreshing a token that is still fresh', async () => {
    const auth = definition({ refreshMarginSeconds: 10 });
    const account = (await connect(auth)).body;
    const result = await auth.validate(account, ctx());
    expect(result).toEqual({ name: 'User ada', accountId: 'ada' });
  });

  it('validate rejects a garbage refresh token with 401', async () => {
    const auth = definition();
    const account = {
      access_token: 'x'.repeat(43),
      refresh_token: 'garbage-refresh-token',
      expire_on: new Date().toISOString(),
    };
    const error = (await auth.validate(account, ctx()).catch((e: unknown) => e)) as WeftError;
    expect(error).toBeInstanceOf(InvalidAccountError);
    expect(error.status).toBe(401);
    expect(toErrorResponse(error).body.message).not.toContain('garbage-refresh-token');
  });

  it('validate rejects a revoked refresh token with 401', async () => {
    const auth = definition();
    const account = (await connect(auth)).body;
    const revoke = await fetch(`${issuer}/token/revocation`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ token: account.refresh_token, token_type_hint: 'refresh_token' }),
    });
    expect(revoke.status).toBe(200);
    const error = (await auth.validate(account, ctx()).catch((e: unknown) => e)) as WeftError;
    expect(error).toBeInstanceOf(InvalidAccountError);
    expect(error.status).toBe(401);
  });

  it('validate answers 401 when the provider refuses the access token and there is no refresh token', async () => {
    const auth = definition({ refreshMarginSeconds: 0 });
    const { refresh_token: _rt, ...account } = (await connect(auth)).body;
    const error = (await auth
      .validate({ ...account, access_token: 'revoked-or-unknown-token' }, ctx())
      .catch((e: unknown) => e)) as WeftError;
    expect(error).toBeInstanceOf(InvalidAccountError);
    expect(error.status).toBe(401);
  });

  it("uses the default account name 'OAuth account' without an account hook", async () => {
    const auth = oauth2({
      authorizeUrl: `${issuer}/auth`,
      tokenUrl: `${issuer}/token`,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
    });
    const result = await auth.validate(
      { access_token: 'anything', expire_on: new Date(Date.now() + 3600_000).toISOString() },
      ctx(),
    );
    expect(result).toEqual({ name: 'OAuth account' });
  });
});

describe('OAuth 2 configuration and bad input', () => {
  it('reads client id and secret from the environment at request time', async () => {
    const auth = oauth2({
      authorizeUrl: `${issuer}/auth`,
      tokenUrl: `${issuer}/token`,
      scopes: ['openid'],
      clientIdEnv: 'MY_APP_CLIENT_ID',
      clientSecretEnv: 'MY_APP_CLIENT_SECRET',
    });
    process.env.MY_APP_CLIENT_ID = CLIENT_ID;
    process.env.MY_APP_CLIENT_SECRET = CLIENT_SECRET;
    const res = await connect(auth);
    expect(res.status).toBe(200);
  });

  it('names the missing environment variable, never a value', async () => {
    process.env.OAUTH2_CLIENT_ID = 'present-client-id-value';
    const auth = oauth2({ authorizeUrl: `${issuer}/auth`, tokenUrl: `${issuer}/token` });
    const res = await request(hostApp(auth))
      .post('/oauth2/v1/authorize')
      .send({ callback_uri: CALLBACK, state: 's' });
    expect(res.status).toBe(500);
    expect(res.body.message).toBe(
      'OAuth 2 client secret is not configured: set the environment variable OAUTH2_CLIENT_SECRET',
    );
    expect(res.body.message).not.toContain('present-client-id-value');
    delete process.env.OAUTH2_CLIENT_ID;
    const res2 = await request(hostApp(auth))
      .post('/oauth2/v1/access_token')
      .send({ fields: { callback_uri: CALLBACK }, code: 'c' });
    expect(res2.status).toBe(500);
    expect(res2.body.message).toMatch(/OAUTH2_CLIENT_ID/);
  });

  it('answers 400 naming the missing field', async () => {
    const app = hostApp(definition());
    const cases: [string, object, string][] = [
      ['/oauth2/v1/authorize', { state: 's' }, 'callback_uri'],
      ['/oauth2/v1/authorize', { callback_uri: CALLBACK }, 'state'],
      ['/oauth2/v1/access_token', { fields: { callback_uri: CALLBACK } }, 'code'],
      ['/oauth2/v1/access_token', { fields: {}, code: 'c' }, 'fields.callback_uri'],
      ['/oauth2/v1/access_token', { code: 'c' }, 'fields'],
    ];
    for (const [path, body, field] of cases) {
      const res = await request(app).post(path).send(body);
      expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      expect(res.body.message).toContain(`"${field}"`);
    }
    const empty = await request(app).post('/oauth2/v1/authorize');
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual({ message: 'Request body must be a JSON object' });
  });

  it('mounts nothing without OAuth authentications', () => {
    expect(createOAuthRouter([])).toBeUndefined();
  });
});
