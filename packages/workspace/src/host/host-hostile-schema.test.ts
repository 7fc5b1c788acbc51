// A schema past the sync engine's limits fails its sync run once, with a message that says so:
// it is not applied (a table of thousands of columns would take minutes and fail anyway) and not
// tried again. A counting proxy in front of the app tells how often the schema was asked for.
// Runs on PGlite, and on Postgres when WEFT_TEST_DATABASE_URL is set.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { auth, defineApp, field } from '@weft/core';
import { type TestApp, testApp } from '@weft/core/testing';
import { MAX_FIELDS_PER_TYPE } from '@weft/sync-engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../../test/support/databases.js';
import { startHostedOn } from './fixtures/hosted-on.js';
import type { HostedWorkspace } from './start-hosted-workspace.js';

const wide = Object.fromEntries(
  Array.from({ length: MAX_FIELDS_PER_TYPE + 10 }, (_, i) => [`f${i}`, field.text({ name: `Field ${i}` })]),
);
const app = defineApp({
  id: 'wide',
  name: 'Wide',
  version: '1.0.0',
  description: 'a type with too many fields',
  website: 'http://127.0.0.1/',
  authentication: [auth.none({ name: 'None' })],
  sync: {
    types: {
      row: {
        name: 'Rows',
        fields: { id: field.id(), name: field.title({ name: 'Name' }), ...wide },
        async *data() {
          yield { id: 'r1', name: 'one' };
        },
      },
    },
  },
});

let served: TestApp;
let proxy: Server;
let proxyUrl = '';
const asked: string[] = [];
beforeAll(async () => {
  served = await testApp(app);
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      asked.push(req.url ?? '');
      const body = Buffer.concat(chunks);
      const answer = await fetch(served.url + req.url, {
        method: req.method ?? 'GET',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        ...(body.length > 0 ? { body } : {}),
      });
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' });
      res.end(Buffer.from(await answer.arrayBuffer()));
    });
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => proxy.close(() => r()));
  await served?.close();
});

for (const target of databaseTargets()) {
  describe(`a schema past the limits [${target.name}]`, () => {
    let ws: HostedWorkspace;
    let stop: () => Promise<void> = async () => {};
    beforeAll(async () => {
      ({ ws, close: stop } = await startHostedOn(target, 'hostile-schema', { jobs: { pollSeconds: 0.5 } }));
    });
    afterAll(() => stop());

    it('fails the run once, naming the limit, without asking again', async () => {
      const source = await ws.apps.addSource({ url: proxyUrl });
      asked.length = 0;
      const run = await ws.apps.sync(source.id, { wait: true });
      expect(run).toMatchObject({ status: 'failed' });
      expect(run.error).toContain(`more than ${MAX_FIELDS_PER_TYPE} fields`);
      expect(asked.filter((p) => p.endsWith('/schema'))).toHaveLength(1);
    });
  });
}
