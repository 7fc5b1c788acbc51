import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { auth, createServer, defineApp, field, silentLogger } from '@weft/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyedApp } from '../src/host/fixtures/keyed-app.js';
import { SecretBox } from '../src/host/secret-box.js';
import { type HostedWorkspace, startHostedWorkspace } from '../src/host/start-hosted-workspace.js';
import { waitFor } from './support/bookshelf-seed.js';
import { logIn } from './support/page-session.js';

// The page's account forms over real HTTP (no browser needed: plain forms and redirects): adding a
// source with a form account, re-authorising it without the page ever showing the secret, an
// OAuth app's add form sending the browser on to the provider, and a script's console output on
// the automations page.

const TOKEN = 'page-accounts-admin-token';
const SECRET_ONE = 'key-one-secret-5d1e';
const SECRET_TWO = 'key-two-secret-8a7c';
const KEYS = new Map([
  [SECRET_ONE, 'Ada'],
  [SECRET_TWO, 'Ada again'],
]);
const servers: Server[] = [];
let keyedUrl: string;
let oauthUrl: string;
let ws: HostedWorkspace;
let cookie = '';
let formToken = '';

const keyed = keyedApp(KEYS);

// Its authorize step only builds the provider's address: nothing is called at 127.0.0.1:9.
const connected = defineApp({
  id: 'connected',
  name: 'Connected',
  version: '1.0.0',
  description: 'An OAuth 2 account',
  website: 'http://127.0.0.1/',
  authentication: [
    auth.oauth2({
      authorizeUrl: 'http://127.0.0.1:9/authorize',
      tokenUrl: 'http://127.0.0.1:9/token',
      clientId: 'page-client',
      clientSecret: 'page-client-secret',
    }),
  ],
  sync: {
    types: {
      me: {
        name: 'Me',
        fields: { id: field.id(), name: field.title({ name: 'Name' }) },
        async *data() {},
      },
    },
  },
});

const listen = (app: ReturnType<typeof defineApp>) =>
  new Promise<string>((resolve) => {
    const s = createServer(app, { logger: silentLogger }).listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(s.address() as AddressInfo).port}`),
    );
    servers.push(s);
  });

beforeAll(async () => {
  ws = await startHostedWorkspace({
    adminToken: TOKEN,
    rateLimit: 0,
    webhooks: false,
    box: new SecretBox('page-accounts-key'),
    hostOptions: { scheduleEveryMs: 0 },
    log: () => {},
  });
  keyedUrl = await listen(keyed);
  oauthUrl = await listen(connected);
  ({ cookie, formToken } = await logIn(ws.url, TOKEN));
});

afterAll(async () => {
  await ws?.close();
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

const page = async (path: string, form?: Record<string, string>) => {
  const res = await fetch(ws.url + path, {
    method: form ? 'POST' : 'GET',
    headers: { cookie, ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
    ...(form ? { body: new URLSearchParams({ ...form, csrf: formToken }).toString() } : {}),
    redirect: 'manual',
  });
  return { status: res.status, location: res.headers.get('location'), text: await res.text() };
};

const api = async (method: string, path: string, body?: unknown) => {
  const r = await fetch(ws.url + path, {
    method,
    headers: { authorization: `Token ${TOKEN}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await r.json().catch(() => undefined)) as any;
};

describe('page: accounts and script console', () => {
  let sourceId = '';

  it('adds a form account and re-authorises it without ever showing the secret', async () => {
    const added = await page('/ui/sources', {
      url: keyedUrl,
      authId: 'key',
      'field.region': 'eu',
      'field.apiKey': SECRET_ONE,
    });
    expect(added.status).toBe(303);
    sourceId = ((await api('GET', '/api/host/sources')) as { id: string }[])[0]!.id;
    const overview = await page('/ui');
    expect(overview.text).toContain(`href="/ui/sources/${sourceId}/account"`);
    expect(overview.text).toContain('Ada (eu)');

    const form = await page(`/ui/sources/${sourceId}/account`);
    expect(form.status).toBe(200);
    expect(form.text).toContain('name="field.region"');
    expect(form.text).toContain('value="eu"');
    expect(form.text).toMatch(/name="field.apiKey" type="password"[^>]*value=""/);
    expect(form.text).toContain('leave empty to keep it');
    expect(form.text).not.toContain(SECRET_ONE);

    // A refused key: the form again with the app's message, still without any secret.
    const refused = await page(`/ui/sources/${sourceId}/account`, {
      'field.region': 'eu',
      'field.apiKey': 'key-wrong-0000',
    });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('That API key is not valid');
    expect(refused.text).not.toContain('key-wrong');
    expect(refused.text).not.toContain(SECRET_ONE);

    const saved = await page(`/ui/sources/${sourceId}/account`, {
      'field.region': 'us',
      'field.apiKey': SECRET_TWO,
    });
    expect(saved.status).toBe(303);
    const after = await page('/ui');
    expect(after.text).toContain('Ada again (us)');
    expect(after.text).not.toContain(SECRET_TWO);
    // Region changed again, the key input left empty: the stored key is kept.
    expect(
      (await page(`/ui/sources/${sourceId}/account`, { 'field.region': 'eu', 'field.apiKey': '' })).status,
    ).toBe(303);
    expect((await page('/ui')).text).toContain('Ada again (eu)');
  });

  it('sends the browser to the provider for an OAuth app, for a new source', async () => {
    const form = await page(`/ui/sources/new?url=${encodeURIComponent(oauthUrl)}`);
    expect(form.text).toContain('action="/ui/sources/oauth"');
    const go = await page('/ui/sources/oauth', { url: oauthUrl, authId: 'oauth2' });
    expect(go.status).toBe(303);
    const to = new URL(go.location ?? '');
    expect(`${to.origin}${to.pathname}`).toBe('http://127.0.0.1:9/authorize');
    expect(to.searchParams.get('redirect_uri')).toBe(`${ws.url}/hooks/oauth2/callback`);
    expect(to.searchParams.get('state')).toBeTruthy();
  });

  it("shows a script's console output with its run", async () => {
    await api('POST', `/api/host/sources/${sourceId}/syncs?wait=true`);
    const [me] = (
      await ws.execute([
        { command: 'svc.entity/query', args: { query: { 'q/from': 'keyed/me', 'q/select': ['svc/id'] } } },
      ])
    ).map((r) => (r as { result: { 'svc/id': string }[] }).result[0]!);
    const script = await api('POST', '/api/automations', {
      name: 'Talkative',
      trigger: 'button',
      type: 'keyed/me',
      action: {
        kind: 'script',
        code: "console.log('checking', args.currentEntities.length, 'entity'); console.warn('<b>careful</b>'); return 1;",
      },
    });
    await api('POST', `/api/automations/${script.id}/run`, { entityIds: [me!['svc/id']] });
    const [run] = await waitFor('the run', async () => {
      const runs = (await api('GET', `/api/automations/runs?automation=${script.id}`)) as { state: string }[];
      return runs[0]?.state === 'done' ? runs : undefined;
    });
    expect(run).toMatchObject({ console: 'checking 1 entity\n[warn] <b>careful</b>' });
    const shown = await page('/ui/automations');
    expect(shown.text).toContain('checking 1 entity');
    expect(shown.text).toContain('[warn] &lt;b&gt;careful&lt;/b&gt;');
    expect(shown.text).not.toContain('<b>careful</b>');
  });
});
