import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import request from 'supertest';
import { checkOAuth1Signature } from '../../test/support/oauth1-signature.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AuthContext } from '../define/authentication.js';
import { sendError, toErrorResponse } from '../errors/error-response.js';
import { InvalidAccountError, type WeftError } from '../errors/errors.js';
import { silentLogger } from '../logging/logger.js';
import { oauth1Auth } from '../upstream/auth.js';
import { createUpstream } from '../upstream/client.js';
import { type OAuth1Options, oauth1 } from './oauth1.js';
import { oauth1Signer } from './oauth1-signer.js';
import { createOAuthRouter } from './router.js';

const CONSUMER_KEY = 'weft-consumer';
const CONSUMER_SECRET = 'consumer-secret-9f8e7d6c5b4a';
const CALLBACK = 'https://service.example/oauth/callback?state=st%2F42&x=1';

// ---------------------------------------------------------------------------------------------
// A small OAuth 1.0a provider that really checks signatures with an RFC 5849 checker written
// independently of oauth-1.0a (test/support/oauth1-signature.ts).
// ---------------------------------------------------------------------------------------------

type Verified = { oauth: Record<string, string> };

function verifySignature(
  req: IncomingMessage,
  body: string,
  origin: string,
  tokenSecret: string,
): Verified | string {
  const checked = checkOAuth1Signature(req, body, { origin, consumerSecret: CONSUMER_SECRET, tokenSecret });
  if (typeof checked === 'string') return checked;
  return checked.oauth.oauth_consumer_key === CONSUMER_KEY ? checked : 'consumer_key_unknown';
}

interface RequestToken {
  secret: string;
  callback: string;
  verifier?: string;
}

const requestTokens = new Map<string, RequestToken>();
const accessTokens = new Map<string, { secret: string; user: string }>();
let server: Server;
let origin: string;
const seen: { path: string; signatureMethod?: string }[] = [];

function reply(res: ServerResponse, status: number, form: Record<string, string>): void {
  res.writeHead(status, { 'content-type': 'application/x-www-form-urlencoded' });
  res.end(new URLSearchParams(form).toString());
}

function handle(req: IncomingMessage, res: ServerResponse, body: string): unknown {
  const url = new URL(req.url ?? '/', origin);
  const refuse = (problem: string) => reply(res, 401, { oauth_problem: problem });
  if (req.method === 'POST' && url.pathname === '/oauth/request_token') {
    const v = verifySignature(req, body, origin, '');
    if (typeof v === 'string') return refuse(v);
    seen.push({ path: url.pathname, signatureMethod: v.oauth.oauth_signature_method });
    const callback = v.oauth.oauth_callback;
    if (!callback) return refuse('parameter_absent');
    const token = `rt-${randomBytes(6).toString('hex')}`;
    const secret = `rts-${randomBytes(12).toString('hex')}`;
    requestTokens.set(token, { secret, callback });
    return reply(res, 200, {
      oauth_token: token,
      oauth_token_secret: secret,
      oauth_callback_confirmed: 'true',
    });
  }
  if (req.method === 'GET' && url.pathname === '/oauth/approve') {
    // The user clicked "Allow": back to the callback with the verifier, its own query intact.
    const token = url.searchParams.get('oauth_token') ?? '';
    const entry = requestTokens.get(token);
    if (!entry) return refuse('token_rejected');
    entry.verifier = `v-${randomBytes(6).toString('hex')}`;
    const back = new URL(entry.callback);
    back.searchParams.set('oauth_token', token);
    back.searchParams.set('oauth_verifier', entry.verifier);
    res.writeHead(302, { location: back.toString() });
    return res.end();
  }
  if (req.method === 'POST' && url.pathname === '/oauth/access_token') {
    const token = /oauth_token="([^"]+)"/.exec(req.headers.authorization ?? '')?.[1];
    const entry = token ? requestTokens.get(decodeURIComponent(token)) : undefined;
    if (!entry || !token) return refuse('token_rejected');
    const v = verifySignature(req, body, origin, entry.secret);
    if (typeof v === 'string') return refuse(v);
    if (!entry.verifier || v.oauth.oauth_verifier !== entry.verifier) return refuse('verifier_invalid');
    requestTokens.delete(decodeURIComponent(token));
    const access = `at-${randomBytes(6).toString('hex')}`;
    const secret = `ats-${randomBytes(12).toString('hex')}`;
    accessTokens.set(access, { secret, user: 'ada' });
    return reply(res, 200, {
      oauth_token: access,
      oauth_token_secret: secret,
      user_id: '42',
      screen_name: 'ada',
    });
  }
  if (req.method === 'GET' && url.pathname === '/1.1/account/verify_credentials.json') {
    const token = /oauth_token="([^"]+)"/.exec(req.headers.authorization ?? '')?.[1];
    const entry = token ? accessTokens.get(decodeURIComponent(token)) : undefined;
    if (!entry) return refuse('token_rejected');
    const v = verifySignature(req, body, origin, entry.secret);
    if (typeof v === 'string') return refuse(v);
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end(JSON.stringify({ id_str: '42', screen_name: entry.user }));
  }
  res.writeHead(404).end();
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      body += c;
    });
    req.on('end', () => handle(req, res, body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

afterEach(() => {
  seen.length = 0;
  delete process.env.OAUTH1_CONSUMER_KEY;
  delete process.env.OAUTH1_CONSUMER_SECRET;
});

// ---------------------------------------------------------------------------------------------

function definition(overrides: Partial<OAuth1Options> = {}) {
  const auth = oauth1({
    requestTokenUrl: `${origin}/oauth/request_token`,
    authorizeUrl: `${origin}/oauth/authorize`,
    accessTokenUrl: `${origin}/oauth/access_token`,
    consumerKey: CONSUMER_KEY,
    consumerSecret: CONSUMER_SECRET,
    account: async ({ token, tokenSecret, signal }) => {
      const api = createUpstream({
        baseUrl: origin,
        auth: oauth1Auth({ consumerKey: CONSUMER_KEY, consumerSecret: CONSUMER_SECRET, token, tokenSecret }),
        signal,
      });
      const me = await api.json<{ id_str: string; screen_name: string }>(
        'GET',
        '/1.1/account/verify_credentials.json',
      );
      return { name: `@${me.screen_name}`, accountId: me.id_str };
    },
    ...overrides,
  });
  return auth;
}

function hostApp(auth: ReturnType<typeof oauth1>) {
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

/** The whole dance: authorize, the user's approval at the provider, access token. */
async function connect(auth = definition()) {
  const app = hostApp(auth);
  const authorize = await request(app).post('/oauth1/v1/authorize').send({ callback_uri: CALLBACK });
  expect(authorize.status).toBe(200);
  const { redirect_uri, token, secret } = authorize.body as {
    redirect_uri: string;
    token: string;
    secret: string;
  };
  expect(redirect_uri).toBe(`${origin}/oauth/authorize?oauth_token=${token}`);
  const approve = await fetch(`${origin}/oauth/approve?oauth_token=${token}`, { redirect: 'manual' });
  const back = new URL(approve.headers.get('location') ?? '');
  // The service's state survived the round trip.
  expect(back.searchParams.get('state')).toBe('st/42');
  expect(back.searchParams.get('x')).toBe('1');
  const accessToken = await request(app)
    .post('/oauth1/v1/access_token')
    .send({
      fields: { access_token: token, access_secret: secret, callback_uri: CALLBACK },
      oauth_verifier: back.searchParams.get('oauth_verifier'),
    });
  return { app, authorize, accessToken, requestToken: { token, secret } };
}

describe('oauth1() definition', () => {
  it('describes itself for the descriptor', () => {
    const auth = definition();
    expect(auth.kind).toBe('oauth1');
    expect(auth.id).toBe('oauth');
    expect(auth.secretKeys).toEqual(['access_token', 'access_secret', 'token_secret']);
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

describe('OAuth 1.0a against a signature-checking provider', () => {
  it('runs request token -> approval -> access token, and validate names the account', async () => {
    const auth = definition();
    const { accessToken } = await connect(auth);
    expect(accessToken.status).toBe(200);
    expect(accessToken.body).toEqual({
      access_token: expect.stringMatching(/^at-/),
      access_secret: expect.stringMatching(/^ats-/),
      user_id: '42',
      screen_name: 'ada',
    });
    expect(seen[0]?.signatureMethod).toBe('HMAC-SHA1');
    expect(await auth.validate(accessToken.body, ctx())).toEqual({ name: '@ada', accountId: '42' });
  });

  it('signs with HMAC-SHA256 when asked', async () => {
    const { accessToken } = await connect(definition({ signatureMethod: 'HMAC-SHA256' }));
    expect(accessToken.status).toBe(200);
    expect(seen[0]?.signatureMethod).toBe('HMAC-SHA256');
  });

  it('answers 401 {message} when the consumer secret is wrong, without the secret', async () => {
    const res = await request(hostApp(definition({ consumerSecret: 'wrong-consumer-secret' })))
      .post('/oauth1/v1/authorize')
      .send({ callback_uri: CALLBACK });
    expect(res.status).toBe(401);
    expect(res.body.message).toBe(
      'Obtaining an OAuth request token failed: the OAuth provider refused (401: oauth_problem=signature_invalid)',
    );
    expect(res.body.message).not.toContain('wrong-consumer-secret');
  });

  it('answers 401 when the request token secret is tampered with at the access token step', async () => {
    const auth = definition();
    const app = hostApp(auth);
    const authorize = await request(app).post('/oauth1/v1/authorize').send({ callback_uri: CALLBACK });
    const { token } = authorize.body as { token: string };
    const approve = await fetch(`${origin}/oauth/approve?oauth_token=${token}`, { redirect: 'manual' });
    const verifier = new URL(approve.headers.get('location') ?? '').searchParams.get('oauth_verifier');
    const res = await request(app)
      .post('/oauth1/v1/access_token')
      .send({
        fields: { access_token: token, access_secret: 'tampered-secret', callback_uri: CALLBACK },
        oauth_verifier: verifier,
      });
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/signature_invalid/);
    expect(res.body.message).not.toContain('tampered-secret');
  });

  it('answers 401 for a wrong verifier', async () => {
    const auth = definition();
    const app = hostApp(auth);
    const authorize = await request(app).post('/oauth1/v1/authorize').send({ callback_uri: CALLBACK });
    const { token, secret } = authorize.body as { token: string; secret: string };
    await fetch(`${origin}/oauth/approve?oauth_token=${token}`, { redirect: 'manual' });
    const res = await request(app)
      .post('/oauth1/v1/access_token')
      .send({ fields: { access_token: token, access_secret: secret }, oauth_verifier: 'guessed-verifier' });
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/verifier_invalid/);
    expect(res.body.message).not.toContain('guessed-verifier');
  });

  it('rejects a tampered signature (the provider checks it)', async () => {
    const sign = oauth1Signer({ key: CONSUMER_KEY, secret: CONSUMER_SECRET });
    const url = `${origin}/oauth/request_token`;
    const header = sign({ method: 'POST', url, oauthParams: { oauth_callback: CALLBACK } });
    const ok = await fetch(url, { method: 'POST', headers: { authorization: header } });
    expect(ok.status).toBe(200);
    const tampered = header.replace(/oauth_signature="[^"]+"/, 'oauth_signature="AAAA"');
    const bad = await fetch(url, { method: 'POST', headers: { authorization: tampered } });
    expect(bad.status).toBe(401);
  });

  it('validate answers 401 when the provider refuses the access token', async () => {
    const auth = definition();
    const error = (await auth
      .validate({ access_token: 'at-unknown', access_secret: 'whatever' }, ctx())
      .catch((e: unknown) => e)) as WeftError;
    expect(error).toBeInstanceOf(InvalidAccountError);
    expect(error.status).toBe(401);
  });

  it('offers a signer and upstream credentials for the account', async () => {
    const auth = definition();
    const account = (await connect(auth)).accessToken.body;
    const url = `${origin}/1.1/account/verify_credentials.json?include_email=true`;
    const res = await fetch(url, {
      headers: { authorization: auth.signer(account)({ method: 'GET', url }) },
    });
    expect(res.status).toBe(200);
    const api = createUpstream({ baseUrl: origin, auth: oauth1Auth(auth.upstreamCredentials(account)) });
    expect(await api.json('GET', '/1.1/account/verify_credentials.json')).toEqual({
      id_str: '42',
      screen_name: 'ada',
    });
  });

  it("uses the default name 'OAuth account' without an account hook", async () => {
    const auth = definition({ account: undefined });
    expect(await auth.validate({ access_token: 'a', access_secret: 'b' }, ctx())).toEqual({
      name: 'OAuth account',
    });
  });
});

describe('OAuth 1 configuration and bad input', () => {
  it('reads the consumer from the environment at request time and names a missing variable', async () => {
    const auth = oauth1({
      requestTokenUrl: `${origin}/oauth/request_token`,
      authorizeUrl: `${origin}/oauth/authorize`,
      accessTokenUrl: `${origin}/oauth/access_token`,
    });
    const missing = await request(hostApp(auth))
      .post('/oauth1/v1/authorize')
      .send({ callback_uri: CALLBACK });
    expect(missing.status).toBe(500);
    expect(missing.body.message).toBe(
      'OAuth 1 consumer key is not configured: set the environment variable OAUTH1_CONSUMER_KEY',
    );
    process.env.OAUTH1_CONSUMER_KEY = CONSUMER_KEY;
    const noSecret = await request(hostApp(auth))
      .post('/oauth1/v1/authorize')
      .send({ callback_uri: CALLBACK });
    expect(noSecret.body.message).toMatch(/OAUTH1_CONSUMER_SECRET/);
    expect(noSecret.body.message).not.toContain(CONSUMER_KEY);
    process.env.OAUTH1_CONSUMER_SECRET = CONSUMER_SECRET;
    const ok = await request(hostApp(auth)).post('/oauth1/v1/authorize').send({ callback_uri: CALLBACK });
    expect(ok.status).toBe(200);
  });

  it('answers 400 naming the missing field', async () => {
    const app = hostApp(definition());
    const cases: [string, object, string][] = [
      ['/oauth1/v1/authorize', {}, 'callback_uri'],
      ['/oauth1/v1/access_token', { fields: { access_token: 'a', access_secret: 'b' } }, 'oauth_verifier'],
      [
        '/oauth1/v1/access_token',
        { fields: { access_secret: 'b' }, oauth_verifier: 'v' },
        'fields.access_token',
      ],
    ];
    for (const [path, body, field] of cases) {
      const res = await request(app).post(path).send(body);
      expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      expect(res.body.message).toContain(`"${field}"`);
    }
  });

  it('answers tryLater when the provider is unreachable', async () => {
    const auth = definition({ requestTokenUrl: 'http://127.0.0.1:9/oauth/request_token' });
    const res = await request(hostApp(auth)).post('/oauth1/v1/authorize').send({ callback_uri: CALLBACK });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      message:
        'Obtaining an OAuth request token failed: the OAuth provider is unavailable (connection failed)',
      tryLater: true,
    });
  });
});
