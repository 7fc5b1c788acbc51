// A sync writes through the workspace's command path, so the workspace's own webhooks see its
// changes like any other command's: one delivery per command, carrying its effects.
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { auth, createServer, defineApp, field, silentLogger } from '@weft/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from './secret-box.js';
import { type HostedWorkspace, startHostedWorkspace } from './start-hosted-workspace.js';

const rows = [
  { id: 'a', name: 'Alpha' },
  { id: 'b', name: 'Beta' },
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
let appServer: Server;
let receiver: Server;
const received: { effects: { type: string }[] }[] = [];

beforeAll(async () => {
  ws = await startHostedWorkspace({
    adminToken: TOKEN,
    rateLimit: 0,
    webhooks: { pollMs: 50 },
    box: new SecretBox('deliveries'),
    hostOptions: { scheduleEveryMs: 0 },
    log: () => {},
  });
  appServer = await new Promise<Server>((resolve) => {
    const s = createServer(app, { logger: silentLogger }).listen(0, '127.0.0.1', () => resolve(s));
  });
  receiver = await new Promise<Server>((resolve) => {
    const s = createHttpServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push(JSON.parse(body));
        res.end('ok');
      });
    }).listen(0, '127.0.0.1', () => resolve(s));
  });
});
afterAll(async () => {
  await ws?.close();
  for (const s of [appServer, receiver]) {
    s?.closeAllConnections();
    await new Promise((r) => s?.close(r));
  }
});

const api = async (method: string, path: string, body?: unknown) => {
  const r = await fetch(ws.url + path, {
    method,
    headers: { authorization: `Token ${TOKEN}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await r.json().catch(() => undefined)) as Record<string, any>;
};

describe('workspace webhooks and syncs', () => {
  it('delivers the changes a sync makes', async () => {
    const source = await api('POST', '/api/host/sources', {
      url: `http://127.0.0.1:${(appServer.address() as AddressInfo).port}`,
    });
    expect((await api('POST', `/api/host/sources/${source.id}/syncs?wait=true`)).status).toBe('succeeded');
    await api('POST', '/api/webhooks/v2', {
      url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
      type: 'mini/item',
    });
    rows[0] = { id: 'a', name: 'Alpha renamed' };
    rows.pop();
    expect((await api('POST', `/api/host/sources/${source.id}/syncs?wait=true`)).status).toBe('succeeded');
    const until = Date.now() + 10_000;
    while (received.length < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    // One delivery for the update of `a`, one for the removal of `b` (not sent by the full sync).
    const effects = received.flatMap((d) => d.effects);
    expect(effects.length).toBeGreaterThanOrEqual(2);
    expect(effects.every((e) => e.type === 'mini/item')).toBe(true);
  });
});
