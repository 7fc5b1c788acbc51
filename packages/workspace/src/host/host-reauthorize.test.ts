// Re-authorising a form account over the host API: the new values are validated through the app
// before they replace the stored ones, a secret left empty keeps its stored value, and no secret
// is ever returned by the API.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer, silentLogger } from '@weft/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyedApp } from './fixtures/keyed-app.js';
import { SecretBox } from './secret-box.js';
import { type HostedWorkspace, startHostedWorkspace } from './start-hosted-workspace.js';
import { hostApi } from './fixtures/host-api.js';

const TOKEN = 'reauthorize-test-admin-token';
/** The upstream's valid API keys and whose they are. */
const KEYS = new Map([
  ['key-one-7f3a', 'Ada'],
  ['key-two-91bc', 'Ada (new key)'],
]);
let appServer: Server;
let appUrl: string;
let ws: HostedWorkspace;
const box = new SecretBox('reauthorize-test-key');

beforeAll(async () => {
  ws = await startHostedWorkspace({
    adminToken: TOKEN,
    rateLimit: 0,
    webhooks: false,
    box,
    hostOptions: { scheduleEveryMs: 0 },
    log: () => {},
  });
  appServer = await new Promise<Server>((resolve) => {
    const s = createServer(keyedApp(KEYS), { logger: silentLogger }).listen(0, '127.0.0.1', () => resolve(s));
  });
  appUrl = `http://127.0.0.1:${(appServer.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await ws?.close();
  if (appServer) {
    appServer.closeAllConnections();
    await new Promise((r) => appServer.close(r));
  }
});

const api = hostApi(() => ws.url, TOKEN);

const stored = async (id: string) => {
  const { rows } = await ws.driver.query<{ account_enc: string }>(
    `SELECT account_enc FROM weft_host_sources WHERE id = $1`,
    [id],
  );
  return box.open<Record<string, unknown>>(rows[0]?.account_enc as string);
};

describe('re-authorising a form account', () => {
  it('validates new values through the app, keeps an empty secret, and never shows one', async () => {
    const added = await api('POST', '/api/host/sources', {
      url: appUrl,
      fields: { region: 'eu', apiKey: 'key-one-7f3a' },
    });
    expect(added.status).toBe(201);
    const id = added.body.id as string;
    expect(added.body.accountName).toBe('Ada (eu)');

    const form = await api('GET', `/api/host/sources/${id}/account`);
    expect(form.status).toBe(200);
    expect(form.body).toMatchObject({ authId: 'key', oauth: false, accountName: 'Ada (eu)' });
    expect(form.body.fields).toEqual([
      expect.objectContaining({ id: 'region', secret: false, stored: true, value: 'eu' }),
      expect.objectContaining({ id: 'apiKey', type: 'password', secret: true, stored: true }),
    ]);
    expect(form.body.fields[1]).not.toHaveProperty('value');
    expect(JSON.stringify(form.body)).not.toContain('key-one');

    // A key the app refuses changes nothing, and the message does not echo it.
    const refused = await api('PUT', `/api/host/sources/${id}/account`, {
      fields: { apiKey: 'key-bad-0000' },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain('That API key is not valid');
    expect(refused.body.message).not.toContain('key-bad');
    expect((await stored(id)).apiKey).toBe('key-one-7f3a');

    // A new key; the region left empty keeps its value.
    const replaced = await api('PUT', `/api/host/sources/${id}/account`, {
      fields: { region: '', apiKey: 'key-two-91bc' },
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ id, accountName: 'Ada (new key) (eu)' });
    expect(JSON.stringify(replaced.body)).not.toContain('key-two');
    expect(await stored(id)).toEqual({ region: 'eu', apiKey: 'key-two-91bc' });

    // Only the region changes; the secret typed nowhere is kept.
    const moved = await api('PUT', `/api/host/sources/${id}/account`, { fields: { region: 'us' } });
    expect(moved.body.accountName).toBe('Ada (new key) (us)');
    expect(await stored(id)).toEqual({ region: 'us', apiKey: 'key-two-91bc' });
    const run = await api('POST', `/api/host/sources/${id}/syncs?wait=true`);
    expect(run.body).toMatchObject({ status: 'succeeded', rowsSet: 1 });
    const [result] = await ws.execute([
      { command: 'svc.entity/query', args: { query: { 'q/from': 'keyed/me', 'q/select': ['keyed/name'] } } },
    ]);
    expect((result as { result: unknown[] }).result).toEqual([{ 'keyed/name': 'Ada (new key) in us' }]);

    // Clearing a required field, an unknown field, an OAuth start on a form source, a missing source.
    expect((await api('PUT', `/api/host/sources/${id}/account`, { fields: { region: null } })).status).toBe(
      400,
    );
    expect((await api('PUT', `/api/host/sources/${id}/account`, { fields: { nope: 'x' } })).status).toBe(400);
    expect((await api('PUT', `/api/host/sources/${id}/account`, {})).status).toBe(400);
    expect((await api('POST', `/api/host/sources/${id}/oauth/start`)).status).toBe(400);
    const missing = '00000000-0000-4000-8000-000000000000';
    expect((await api('PUT', `/api/host/sources/${missing}/account`, { fields: {} })).status).toBe(404);
  });
});
