// The app's webhook never blocks what asked for it: a source is added even when the third party
// refuses the webhook (the next sync installs it), and a re-authorised account has the app install
// it again with the new account.
import { type TestApp, testApp } from '@weft/core/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type KeyedAppWebhooks, keyedApp } from './fixtures/keyed-app.js';
import { SecretBox } from './secret-box.js';
import { type HostedWorkspace, startHostedWorkspace } from './start-hosted-workspace.js';
import { hostApi } from './fixtures/host-api.js';

const TOKEN = 'webhook-install-test-admin-token';
const KEYS = new Map([
  ['key-one-55aa', 'Ada'],
  ['key-two-66bb', 'Ada (new key)'],
]);
const hooks: KeyedAppWebhooks = { installs: [], refuse: true };
const logged: string[] = [];
let served: TestApp;
let ws: HostedWorkspace;

beforeAll(async () => {
  ws = await startHostedWorkspace({
    adminToken: TOKEN,
    rateLimit: 0,
    webhooks: false,
    box: new SecretBox('webhook-install-test-key'),
    hostOptions: { scheduleEveryMs: 0 },
    log: (message: string) => logged.push(message),
  });
  served = await testApp(keyedApp(KEYS, hooks));
});

afterAll(async () => {
  await ws?.close();
  await served?.close();
});

const api = hostApi(() => ws.url, TOKEN);

it('adds the source when the webhook is refused, installs it at the next sync, and again for a new account', async () => {
  const added = await api('POST', '/api/host/sources', {
    url: served.url,
    fields: { region: 'eu', apiKey: 'key-one-55aa' },
  });
  expect(added.status, JSON.stringify(added.body)).toBe(201);
  expect(added.body).toMatchObject({ webhooksEnabled: true, webhook: null });
  expect(logged.join('\n')).toContain('installing the app webhook failed');
  expect(logged.join('\n')).not.toContain('key-one-55aa');
  const id = added.body.id as string;

  hooks.refuse = false;
  const run = await api('POST', `/api/host/sources/${id}/syncs?wait=true`);
  expect(run.body.status).toBe('succeeded');
  expect(hooks.installs).toEqual(['key-one-55aa']);
  expect((await api('GET', `/api/host/sources/${id}`)).body.webhook).toEqual({ id: 'hook-1' });

  // A later sync leaves an installed webhook alone.
  await api('POST', `/api/host/sources/${id}/syncs?wait=true`);
  expect(hooks.installs).toHaveLength(1);

  const replaced = await api('PUT', `/api/host/sources/${id}/account`, {
    fields: { apiKey: 'key-two-66bb' },
  });
  expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
  expect(hooks.installs).toEqual(['key-one-55aa', 'key-two-66bb']);
  expect(replaced.body.webhook).toEqual({ id: 'hook-2' });
});
