// A sync writes through the workspace's command path, so the workspace's own webhooks see its
// changes like any other command's: one delivery per command, carrying its effects.
import { auth, defineApp, field } from '@weft/core';
import { type TestApp, testApp } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hookReceiver } from '../../test/support/hook-receiver.js';
import { hostApi } from './fixtures/host-api.js';
import { SecretBox } from './secret-box.js';
import { type HostedWorkspace, startHostedWorkspace } from './start-hosted-workspace.js';

const rows = [
  { id: 'a', name: 'Alpha' },
  { id: 'b', name: 'Beta' },
  { id: 'c', name: 'Gamma' },
];
const app = defineApp({
  id: 'mini',
  name: 'Mini',
  version: '1.0.0',
  description: 'two rows',
  website: 'http://127.0.0.1/',
  authentication: [auth.none({ name: 'None' })],
  sync: {
    types: {
      item: {
        name: 'Items',
        fields: { id: field.id(), name: field.title({ name: 'Name' }) },
        async *data() {
          yield* rows.map((r) => ({ ...r }));
        },
      },
    },
  },
});

const TOKEN = 'deliveries-test-token';
let ws: HostedWorkspace;
let served: TestApp;
const receiver = hookReceiver();

beforeAll(async () => {
  ws = await startHostedWorkspace({
    adminToken: TOKEN,
    rateLimit: 0,
    webhooks: { pollMs: 50 },
    box: new SecretBox('deliveries'),
    hostOptions: { scheduleEveryMs: 0 },
    log: () => {},
  });
  served = await testApp(app);
  await receiver.start();
});
afterAll(async () => {
  await ws?.close();
  await served?.close();
  await receiver.stop();
});

const call = hostApi(() => ws.url, TOKEN);
const api = async (method: string, path: string, body?: unknown) => (await call(method, path, body)).body;

describe('workspace webhooks and syncs', () => {
  it('delivers the changes a sync makes, and nothing for the rows it writes back as they were', async () => {
    const source = await api('POST', '/api/host/sources', {
      url: served.url,
    });
    const sync = async () =>
      expect((await api('POST', `/api/host/sources/${source.id}/syncs?wait=true`)).status).toBe('succeeded');
    await sync();
    await api('POST', '/api/webhooks/v2', {
      url: receiver.url,
      type: 'mini/item',
    });
    rows[0] = { id: 'a', name: 'Alpha renamed' };
    rows.splice(1, 1);
    await sync();
    rows[1] = { id: 'c', name: 'Gamma renamed' };
    await sync();
    // The second sync: the update of `a` and the removal of `b` (not sent by the full sync); `c`
    // is written back as it was, which is no change. The third: the update of `c` only.
    const received = await receiver.until(3);
    const effects = received.flatMap((d) => d.body.effects as Record<string, unknown>[]);
    const date = expect.stringMatching(/Z$/);
    const update = (before: string, after: string) => ({
      effect: 'svc.entity/update',
      id: expect.any(String),
      type: 'mini/item',
      values: { 'mini/name': after, 'svc/modification-date': date },
      valuesBefore: { 'mini/name': before, 'svc/modification-date': date },
    });
    expect(effects).toEqual([
      update('Alpha', 'Alpha renamed'),
      {
        effect: 'svc.entity/delete',
        id: expect.any(String),
        type: 'mini/item',
        valuesBefore: expect.objectContaining({ 'mini/name': 'Beta', 'svc/public-id': expect.any(String) }),
      },
      update('Gamma', 'Gamma renamed'),
    ]);
    expect(new Set(effects.map((e) => e.id)).size).toBe(3);
    await ws.webhooks?.idle();
    expect(receiver.bodies).toHaveLength(3);
  });
});
