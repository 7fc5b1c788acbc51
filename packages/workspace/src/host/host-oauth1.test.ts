// An OAuth 1 source end to end over real HTTP: a core app with OAuth 1 authentication, a local
// OAuth 1.0a provider that checks every signature (with the independent RFC 5849 checker of core's
// tests), and the workspace's own callback. The workspace asks the app for the provider's address,
// the "browser" follows the redirects, the callback finishes the connection, the source syncs with
// the tokens; then the same source is re-authorised and gets new tokens, and a tampered callback
// is refused.
import { randomBytes } from 'node:crypto';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { auth, createServer, createUpstream, defineApp, field, oauth1Auth, silentLogger } from '@weft/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkOAuth1Signature } from '../../../core/test/support/oauth1-signature.js';
import { SecretBox } from './secret-box.js';
import { type HostedWorkspace, startHostedWorkspace } from './start-hosted-workspace.js';
import { hostApi } from './fixtures/host-api.js';

const CONSUMER_KEY = 'weft-host-consumer';
const CONSUMER_SECRET = 'weft-host-consumer-secret-5a4b3c2d1e';
const TOKEN = 'oauth1-test-admin-token';

let providerServer: Server;
let origin: string;
let appServer: Server;
let appUrl: string;
let ws: HostedWorkspace;
const box = new SecretBox('oauth1-test-key');

// --- a small OAuth 1.0a provider -------------------------------------------------------------
const requestTokens = new Map<string, { secret: string; callback: string; verifier?: string }>();
const accessTokens = new Map<string, { secret: string; user: string }>();
let approvals = 0;

function reply(res: ServerResponse, status: number, form: Record<string, string>): void {
  res.writeHead(status, { 'content-type': 'application/x-www-form-urlencoded' });
  res.end(new URLSearchParams(form).toString());
}

function signed(req: IncomingMessage, body: string, tokenSecret: string) {
  const checked = checkOAuth1Signature(req, body, { origin, consumerSecret: CONSUMER_SECRET, tokenSecret });
  if (typeof checked === 'string') return checked;
  return checked.oauth.oauth_consumer_key === CONSUMER_KEY ? checked : 'consumer_key_unknown';
}

const headerToken = (req: IncomingMessage) => {
  const t = /oauth_token="([^"]+)"/.exec(req.headers.authorization ?? '')?.[1];
  return t ? decodeURIComponent(t) : undefined;
};

function provide(req: IncomingMessage, res: ServerResponse, body: string): unknown {
  const url = new URL(req.url ?? '/', origin);
  const refuse = (problem: string) => reply(res, 401, { oauth_problem: problem });
  if (req.method === 'POST' && url.pathname === '/oauth/request_token') {
    const v = signed(req, body, '');
    if (typeof v === 'string') return refuse(v);
    if (!v.oauth.oauth_callback) return refuse('parameter_absent');
    const token = `rt-${randomBytes(6).toString('hex')}`;
    const secret = `rts-${randomBytes(12).toString('hex')}`;
    requestTokens.set(token, { secret, callback: v.oauth.oauth_callback });
    return reply(res, 200, {
      oauth_token: token,
      oauth_token_secret: secret,
      oauth_callback_confirmed: 'true',
    });
  }
  if (req.method === 'GET' && url.pathname === '/oauth/authorize') {
    // The user is signed in and clicks "Allow": back to the callback, its own query kept.
    const token = url.searchParams.get('oauth_token') ?? '';
    const entry = requestTokens.get(token);
    if (!entry) return refuse('token_rejected');
    entry.verifier = `v-${randomBytes(6).toString('hex')}`;
    approvals++;
    const back = new URL(entry.callback);
    back.searchParams.set('oauth_token', token);
    back.searchParams.set('oauth_verifier', entry.verifier);
    res.writeHead(302, { location: back.toString() });
    return void res.end();
  }
  if (req.method === 'POST' && url.pathname === '/oauth/access_token') {
    const token = headerToken(req);
    const entry = token ? requestTokens.get(token) : undefined;
    if (!entry || !token) return refuse('token_rejected');
    const v = signed(req, body, entry.secret);
    if (typeof v === 'string') return refuse(v);
    if (!entry.verifier || v.oauth.oauth_verifier !== entry.verifier) return refuse('verifier_invalid');
    requestTokens.delete(token);
    const access = `at-${randomBytes(6).toString('hex')}`;
    const secret = `ats-${randomBytes(12).toString('hex')}`;
    accessTokens.set(access, { secret, user: 'ada' });
    return reply(res, 200, { oauth_token: access, oauth_token_secret: secret, user_id: '42' });
  }
  if (req.method === 'GET' && url.pathname === '/api/me') {
    const token = headerToken(req);
    const entry = token ? accessTokens.get(token) : undefined;
    if (!entry) return refuse('token_rejected');
    const v = signed(req, body, entry.secret);
    if (typeof v === 'string') return refuse(v);
    res.writeHead(200, { 'content-type': 'application/json' });
    return void res.end(JSON.stringify({ id: '42', screen_name: entry.user }));
  }
  res.writeHead(404).end();
}

// --- the app -----------------------------------------------------------------------------------
const upstream = (account: { access_token?: unknown; access_secret?: unknown }, signal?: AbortSignal) =>
  createUpstream({
    baseUrl: origin,
    auth: oauth1Auth({
      consumerKey: CONSUMER_KEY,
      consumerSecret: CONSUMER_SECRET,
      token: String(account.access_token),
      tokenSecret: String(account.access_secret),
    }),
    ...(signal ? { signal } : {}),
  });

function oauth1App() {
  return defineApp({
    id: 'tweets',
    name: 'Tweets',
    version: '1.0.0',
    description: 'The signed-in user, through OAuth 1',
    website: 'http://127.0.0.1/',
    authentication: [
      auth.oauth1({
        requestTokenUrl: `${origin}/oauth/request_token`,
        authorizeUrl: `${origin}/oauth/authorize`,
        accessTokenUrl: `${origin}/oauth/access_token`,
        consumerKey: CONSUMER_KEY,
        consumerSecret: CONSUMER_SECRET,
        account: async ({ token, tokenSecret, signal }) => {
          const me = await upstream({ access_token: token, access_secret: tokenSecret }, signal).json<{
            id: string;
            screen_name: string;
          }>('GET', '/api/me');
          return { name: `@${me.screen_name}`, accountId: me.id };
        },
      }),
    ],
    sync: {
      types: {
        me: {
          name: 'Me',
          fields: { id: field.id(), name: field.title({ name: 'Name' }) },
          async *data({ account, signal }) {
            const me = await upstream(account as never, signal).json<{ id: string; screen_name: string }>(
              'GET',
              '/api/me',
            );
            yield { id: me.id, name: me.screen_name };
          },
        },
      },
    },
  });
}

beforeAll(async () => {
  ws = await startHostedWorkspace({
    adminToken: TOKEN,
    rateLimit: 0,
    webhooks: false,
    box,
    hostOptions: { scheduleEveryMs: 0 },
    log: () => {},
  });
  providerServer = createHttpServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      body += c;
    });
    req.on('end', () => provide(req, res, body));
  });
  await new Promise<void>((resolve) => providerServer.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(providerServer.address() as AddressInfo).port}`;
  appServer = await new Promise<Server>((resolve) => {
    const s = createServer(oauth1App(), { logger: silentLogger }).listen(0, '127.0.0.1', () => resolve(s));
  });
  appUrl = `http://127.0.0.1:${(appServer.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await ws?.close();
  for (const s of [appServer, providerServer]) {
    if (!s) continue;
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

const api = hostApi(() => ws.url, TOKEN);

/** Follows the provider's redirects as a browser does, up to the workspace's callback. */
async function approve(redirectUri: string): Promise<string> {
  const res = await fetch(redirectUri, { redirect: 'manual' });
  expect(res.status).toBe(302);
  const location = new URL(res.headers.get('location') ?? '', redirectUri).href;
  expect(location.startsWith(`${ws.url}/hooks/oauth1/callback?`)).toBe(true);
  return location;
}

const sealedAccount = async (id: string) => {
  const { rows } = await ws.driver.query<{ account_enc: string }>(
    `SELECT account_enc FROM weft_host_sources WHERE id = $1`,
    [id],
  );
  return {
    sealed: rows[0]?.account_enc as string,
    open: box.open<Record<string, string>>(rows[0]?.account_enc as string),
  };
};

describe('an OAuth 1 source', () => {
  let sourceId = '';

  it('connects through the workspace callback and syncs with the tokens', async () => {
    const direct = await api('POST', '/api/host/sources', { url: appUrl });
    expect(direct.status).toBe(400);
    expect(direct.body.message).toContain('/api/host/oauth1/start');

    const start = await api('POST', '/api/host/oauth1/start', { url: appUrl });
    expect(start.status).toBe(200);
    // Between the two steps the request token secret lives sealed in the database only.
    const { rows: waiting } = await ws.driver.query<{ request_enc: string }>(
      `SELECT request_enc FROM weft_host_oauth`,
    );
    expect(waiting).toHaveLength(1);
    expect(waiting[0]?.request_enc).not.toContain('rts-');
    const callback = await approve(start.body.redirectUri);
    expect(new URL(callback).searchParams.get('state')).toBe(start.body.state);

    const done = await fetch(callback);
    expect(done.status).toBe(200);
    const { source } = (await done.json()) as { source: { id: string; authId: string; accountName: string } };
    expect(source).toMatchObject({ authId: 'oauth', accountName: '@ada' });
    sourceId = source.id;
    // The same callback cannot be used twice.
    expect((await fetch(callback)).status).toBe(400);

    const account = await sealedAccount(sourceId);
    expect(account.open.access_token).toMatch(/^at-/);
    expect(account.open.access_secret).toMatch(/^ats-/);
    expect(account.sealed).not.toContain(account.open.access_token);
    // The API shows no token.
    const shown = JSON.stringify((await api('GET', `/api/host/sources/${sourceId}/account`)).body);
    expect(shown).not.toContain(account.open.access_token);
    expect(shown).not.toContain(account.open.access_secret);

    const { body: run } = await api('POST', `/api/host/sources/${sourceId}/syncs?wait=true`);
    expect(run).toMatchObject({ status: 'succeeded', rowsSet: 1 });
    const [result] = await ws.execute([
      {
        command: 'svc.entity/query',
        args: { query: { 'q/from': 'tweets/me', 'q/select': ['tweets/name'] } },
      },
    ]);
    expect((result as { result: unknown[] }).result).toEqual([{ 'tweets/name': 'ada' }]);
  });

  it('re-authorises the same source: new tokens replace the old, no second source', async () => {
    const before = await sealedAccount(sourceId);
    const start = await api('POST', `/api/host/sources/${sourceId}/oauth/start`);
    expect(start.status).toBe(200);
    const callback = await approve(start.body.redirectUri);
    // A browser is sent on to the page.
    const done = await fetch(callback, { redirect: 'manual', headers: { accept: 'text/html,*/*;q=0.8' } });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(`/ui?connected=${sourceId}`);

    const sources = (await api('GET', '/api/host/sources')).body as unknown as { id: string }[];
    expect(sources.map((s) => s.id)).toEqual([sourceId]);
    const after = await sealedAccount(sourceId);
    expect(after.open.access_token).toMatch(/^at-/);
    expect(after.open.access_token).not.toBe(before.open.access_token);
    // The old access token is no longer the source's: the provider still knows it, the source does not use it.
    expect((await api('POST', `/api/host/sources/${sourceId}/syncs?wait=true`)).body).toMatchObject({
      status: 'succeeded',
    });
  });

  it('refuses a callback whose token is not the one the connection asked for, or an unknown state', async () => {
    const start = await api('POST', '/api/host/oauth1/start', { url: appUrl });
    const callback = new URL(await approve(start.body.redirectUri));
    callback.searchParams.set('oauth_token', 'rt-forged');
    const forged = await fetch(callback);
    expect(forged.status).toBe(400);
    expect(((await forged.json()) as { message: string }).message).toBe('The OAuth token does not match');
    const unknown = await fetch(`${ws.url}/hooks/oauth1/callback?state=nope&oauth_verifier=v`);
    expect(unknown.status).toBe(400);
    const missing = await fetch(`${ws.url}/hooks/oauth1/callback?state=nope`);
    expect(missing.status).toBe(400);
    // Re-authorising an OAuth 1 source through the form route is refused with the way to do it.
    const form = await api('PUT', `/api/host/sources/${sourceId}/account`, { fields: {} });
    expect(form.status).toBe(400);
    expect(approvals).toBe(3);
  });
});
