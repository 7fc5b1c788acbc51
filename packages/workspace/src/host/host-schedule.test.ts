// Scheduled syncs go through the job queue: a recurring tick job starts the runs of sources whose
// interval passed, and stopping the process that ran it leaves the tick for the next one.
import type { AddressInfo } from 'node:net';
import { auth, createServer, defineApp, field, silentLogger } from '@weft/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SecretBox } from './secret-box.js';
import { type HostedWorkspace, startHostedWorkspace } from './start-hosted-workspace.js';

let reads = 0;
const app = defineApp({
  id: 'ticker',
  name: 'Ticker',
  version: '1.0.0',
  description: 'one row',
  website: 'http://127.0.0.1/',
  authentication: [auth.none({ name: 'None' })],
  sync: {
    types: {
      item: {
        name: 'Items',
        fields: { id: field.id(), name: field.title({ name: 'Name' }) },
        async *data() {
          reads++;
          yield { id: 'one', name: `Read ${reads}` };
        },
      },
    },
  },
});

let server: ReturnType<ReturnType<typeof createServer>['listen']>;
let ws: HostedWorkspace;
beforeAll(async () => {
  server = await new Promise((resolve) => {
    const s = createServer(app, { logger: silentLogger }).listen(0, '127.0.0.1', () => resolve(s));
  });
  ws = await startHostedWorkspace({
    rateLimit: 0,
    webhooks: false,
    box: new SecretBox('schedule-test-key'),
    jobs: { pollSeconds: 0.5 },
    hostOptions: { scheduleEveryMs: 300 },
    log: () => {},
  });
});
afterAll(async () => {
  await ws?.close();
  server?.close();
  server?.closeAllConnections();
});

it('syncs a source again on its interval, through the tick job', async () => {
  const source = await ws.apps.addSource({
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    intervalSeconds: 1,
  });
  const until = Date.now() + 30_000;
  let runs = await ws.apps.runs(source.id);
  while (runs.filter((r) => r.status === 'succeeded').length < 2 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 100));
    runs = await ws.apps.runs(source.id);
  }
  const done = runs.filter((r) => r.status === 'succeeded');
  expect(done.length).toBeGreaterThanOrEqual(2);
  expect(done.every((r) => r.kind === 'scheduled')).toBe(true);
  // One tick waits in the queue, whichever process runs it next.
  const { rows } = await ws.driver.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'weft-sync-tick' AND state = 'created'`,
  );
  expect(rows[0]?.n).toBe(1);
}, 40_000);
