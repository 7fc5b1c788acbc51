// An OAuth 2 source end to end against a real local provider (oidc-provider): the workspace asks
// the app for the authorization address with its own callback, the user approves at the
// provider, the provider sends the browser to the workspace's callback, the app exchanges the
// code, the source syncs with the token, and /validate before each sync refreshes the token that
// nears expiry, the refreshed account being stored sealed.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { auth, createServer, defineApp, field, silentLogger } from '@weft/core';
import { type LocalOAuth2Provider, startOAuth2Provider } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from './secret-box.js';
import { type HostedWorkspace, startHostedWorkspace } from './start-hosted-workspace.js';
import { hostApi } from './fixtures/host-api.js';

const CLIENT_ID = 'weft-host-client';
const CLIENT_SECRET = 'weft-host-client-secret-0123456789abcdef';
const TOKEN = 'oauth-test-admin-token';

let idp: LocalOAuth2Provider;
let issuer: string;
let appServer: Server;
let appUrl: string;
let ws: HostedWorkspace;
const box = new SecretBox('oauth-test-key');

const userinfo = (accessToken: string, signal?: AbortSignal) => idp.userinfo(accessToken, signal);

function oauthApp() {
  return defineApp({
    id: 'profile',
    name: 'Profile',
    version: '1.0.0',
    description: 'The signed-in user, through OAuth 2',
    website: 'http://127.0.0.1/',
    authentication: [
      auth.oauth2({
        authorizeUrl: `${issuer}/auth`,
        tokenUrl: `${issuer}/token`,
        scopes: ['openid', 'profile'],
        clientId: CLIENT_ID,
        clientSecret: CLIENT_SECRET,
        // As QuickBooks adds the company's `realmId` to its callback.
        callbackParams: ['realmId'],
        account: async ({ accessToken, signal }) => {
          const me = await userinfo(accessToken, signal);
          return { name: me.name, accountId: me.sub };
        },
      }),
    ],
    sync: {
      types: {
        me: {
          name: 'Me',
          fields: { id: field.id(), name: field.title({ name: 'Name' }) },
          async *data({ account, signal }) {
            const me = await userinfo(String((account as { access_token?: string }).access_token), signal);
            yield { id: me.sub, name: me.name };
          },
        },
      },
    },
  });
}

/** Plays the user's browser at the provider: login and consent, until the workspace's callback. */
const approve = async (authorizeUrl: string, callbackPrefix: string) =>
  (await idp.approve(authorizeUrl, { callbackPrefix })).href;

beforeAll(async () => {
  ws = await startHostedWorkspace({
    adminToken: TOKEN,
    rateLimit: 0,
    webhooks: false,
    box,
    hostOptions: { scheduleEveryMs: 0 },
    log: () => {},
  });
  // Access tokens live 60 s, inside the app's 300 s refresh margin: every /validate refreshes.
  idp = await startOAuth2Provider({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    redirectUri: ws.apps.oauthCallbackUrl(),
    accessTokenSeconds: 60,
  });
  issuer = idp.issuer;
  appServer = await new Promise<Server>((resolve) => {
    const s = createServer(oauthApp(), { logger: silentLogger }).listen(0, '127.0.0.1', () => resolve(s));
  });
  appUrl = `http://127.0.0.1:${(appServer.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await ws?.close();
  appServer?.closeAllConnections();
  await new Promise((r) => appServer?.close(r));
  await idp?.close();
});

const api = hostApi(() => ws.url, TOKEN);

describe('an OAuth 2 source', () => {
  it('connects through the workspace callback, syncs, and refreshes the token through /validate', async () => {
    expect((await api('POST', '/api/host/sources', { url: appUrl })).status).toBe(400);
    const start = await api('POST', '/api/host/oauth2/start', { url: appUrl });
    expect(start.status).toBe(200);
    const callback = await approve(start.body.redirectUri, ws.apps.oauthCallbackUrl());
    expect(new URL(callback).searchParams.get('state')).toBe(start.body.state);

    const done = await fetch(callback);
    expect(done.status).toBe(200);
    const { source } = (await done.json()) as { source: { id: string; authId: string; accountName: string } };
    expect(source).toMatchObject({ authId: 'oauth2', accountName: 'User ada' });
    // The same callback cannot be used twice.
    expect((await fetch(callback)).status).toBe(400);

    const { rows } = await ws.driver.query<{ account_enc: string }>(
      `SELECT account_enc FROM weft_host_sources`,
    );
    const first = box.open<{ access_token: string; refresh_token: string }>(rows[0]?.account_enc as string);
    expect(first.access_token).toBeTruthy();
    expect(JSON.stringify(rows)).not.toContain(first.access_token);

    const { body: run } = await api('POST', `/api/host/sources/${source.id}/syncs?wait=true`);
    expect(run).toMatchObject({ status: 'succeeded', rowsSet: 1 });
    const after = await ws.driver.query<{ account_enc: string }>(`SELECT account_enc FROM weft_host_sources`);
    const refreshed = box.open<{ access_token: string }>(after.rows[0]?.account_enc as string);
    expect(refreshed.access_token).not.toBe(first.access_token);

    const [result] = await ws.execute([
      {
        command: 'svc.entity/query',
        args: { query: { 'q/from': 'profile/me', 'q/select': ['profile/name'] } },
      },
    ]);
    expect((result as { result: unknown[] }).result).toEqual([{ 'profile/name': 'User ada' }]);
  });

  it('re-authorises the same source through the callback: its account is replaced, no source is added', async () => {
    const { body: sources } = await api('GET', '/api/host/sources');
    const id = (sources as unknown as { id: string }[])[0]?.id as string;
    const read = async () => {
      const { rows } = await ws.driver.query<{ account_enc: string }>(
        `SELECT account_enc FROM weft_host_sources WHERE id = $1`,
        [id],
      );
      return box.open<{ access_token: string; refresh_token: string }>(rows[0]?.account_enc as string);
    };
    const before = await read();
    const start = await api('POST', `/api/host/sources/${id}/oauth/start`);
    expect(start.status).toBe(200);
    const callback = await approve(start.body.redirectUri, ws.apps.oauthCallbackUrl());
    const done = await fetch(callback);
    expect(done.status).toBe(200);
    const { source } = (await done.json()) as { source: { id: string; accountName: string } };
    expect(source).toMatchObject({ id, accountName: 'User ada' });
    expect(((await api('GET', '/api/host/sources')).body as unknown as unknown[]).length).toBe(1);
    const after = await read();
    expect(after.refresh_token).toBeTruthy();
    expect(after.refresh_token).not.toBe(before.refresh_token);
    expect(after.access_token).not.toBe(before.access_token);
    // The account form of an OAuth source offers the connection again, and shows no token.
    const form = await api('GET', `/api/host/sources/${id}/account`);
    expect(form.body).toMatchObject({ authId: 'oauth2', oauth: true });
    expect(JSON.stringify(form.body)).not.toContain(after.access_token);
    const { body: run } = await api('POST', `/api/host/sources/${id}/syncs?wait=true`);
    expect(run).toMatchObject({ status: 'succeeded', rowsSet: 1 });
  });

  it("hands the provider's own callback parameters to the app, which keeps those it names in the account", async () => {
    const start = await api('POST', '/api/host/oauth2/start', { url: appUrl });
    const callback = new URL(await approve(start.body.redirectUri, ws.apps.oauthCallbackUrl()));
    // The provider sends the browser back with a parameter of its own.
    callback.searchParams.set('realmId', '9130-3561');
    const done = await fetch(callback);
    expect(done.status).toBe(200);
    const { source } = (await done.json()) as { source: { id: string } };
    const stored = async () => {
      const { rows } = await ws.driver.query<{ account_enc: string }>(
        `SELECT account_enc FROM weft_host_sources WHERE id = $1`,
        [source.id],
      );
      return box.open<Record<string, unknown>>(rows[0]?.account_enc as string);
    };
    expect(await stored()).toMatchObject({ realmId: '9130-3561' });
    // /validate's refreshed tokens are added to the account: the kept parameter stays.
    const { body: run } = await api('POST', `/api/host/sources/${source.id}/syncs?wait=true`);
    expect(run).toMatchObject({ status: 'succeeded' });
    expect(await stored()).toMatchObject({ realmId: '9130-3561' });
  });
});
