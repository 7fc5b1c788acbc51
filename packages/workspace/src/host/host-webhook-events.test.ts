// App-webhook events through the job queue, over real HTTP: an app that signs its webhooks has the
// third party's request pre-processed (the exact bytes reach its signature check, the sender gets
// the app's reply), the event is queued for the source whose webhook's workspace it names, and a
// worker has the app transform it into delta rows.
import type { AddressInfo } from 'node:net';
import {
  auth,
  createServer,
  defineApp,
  field,
  input,
  remove,
  signHmac,
  silentLogger,
  verifyHmacSignature,
} from '@weft/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from './secret-box.js';
import { type HostedWorkspace, startHostedWorkspace } from './start-hosted-workspace.js';

const SIGNING = 'shared-signing-secret';
const seen: { transforms: number; rawBodies: string[] } = { transforms: 0, rawBodies: [] };

const app = defineApp({
  id: 'signed',
  name: 'Signed',
  version: '1.0.0',
  description: 'notes, pushed with signed webhooks',
  website: 'http://127.0.0.1/',
  authentication: [
    auth.fields({
      id: 'token',
      name: 'Token',
      fields: { token: input.password({ name: 'Token' }) },
      async validate() {
        return { name: 'Team seven', accountId: 'acct-7' };
      },
    }),
  ],
  sync: {
    types: {
      note: {
        name: 'Notes',
        delta: true,
        fields: { id: field.id(), name: field.title({ name: 'Text' }) },
        async *data() {
          yield { id: 'n1', name: 'First note' };
        },
      },
    },
    webhooks: {
      async install({ account }) {
        // The workspace pre-process names an event's deliveries by: here the upstream account.
        return {
          id: 'hook-signed',
          events: ['note.changed'],
          workspaceId: String((account as { accountId?: unknown }).accountId),
        };
      },
      async uninstall() {},
      async verify() {
        return 'hook-signed';
      },
      async transform({ payload }) {
        seen.transforms++;
        const event = payload as { kind: string; note: { id: string; text?: string } };
        return {
          note: [
            event.kind === 'deleted'
              ? remove(event.note.id)
              : { id: event.note.id, name: event.note.text ?? '' },
          ],
        };
      },
      async preProcess({ rawBody, headers }) {
        seen.rawBodies.push(rawBody.toString('utf8'));
        verifyHmacSignature({
          secret: SIGNING,
          rawBody,
          signature: headers['x-signed-signature'] as string | undefined,
          prefix: 'sha256=',
        });
        const event = JSON.parse(rawBody.toString('utf8')) as { accountId: string };
        return { reply: { received: true }, workspaceIds: [event.accountId] };
      },
    },
  },
});

let server: ReturnType<ReturnType<typeof createServer>['listen']>;
let ws: HostedWorkspace;
let sourceId: string;

beforeAll(async () => {
  server = await new Promise((resolve) => {
    const s = createServer(app, { logger: silentLogger }).listen(0, '127.0.0.1', () => resolve(s));
  });
  ws = await startHostedWorkspace({
    rateLimit: 0,
    webhooks: false,
    box: new SecretBox('signed-test-key'),
    jobs: { pollSeconds: 0.5 },
    hostOptions: { scheduleEveryMs: 0 },
    log: () => {},
  });
  const source = await ws.apps.addSource({
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    fields: { token: 't' },
  });
  sourceId = source.id;
  expect((await ws.apps.sync(sourceId, { wait: true })).status).toBe('succeeded');
});
afterAll(async () => {
  await ws?.close();
  server?.close();
  server?.closeAllConnections();
});

/** Posts an event as the third party would: a body written with its own spacing, signed over those bytes. */
async function post(
  body: string,
  signature = signHmac({ secret: SIGNING, rawBody: body, prefix: 'sha256=' }),
) {
  const res = await fetch(ws.apps.webhookUrl(sourceId), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-signed-signature': signature },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function notes(): Promise<Record<string, string>> {
  const [result] = await ws.execute([
    {
      command: 'svc.entity/query',
      args: {
        query: { 'q/from': 'signed/note', 'q/select': ['signed/id', 'signed/name'], 'q/limit': 'q/no-limit' },
      },
    },
  ]);
  const rows = (result as { result: Record<string, string>[] }).result;
  return Object.fromEntries(rows.map((r) => [r['signed/id'], r['signed/name']]));
}

async function webhookRuns() {
  return (await ws.apps.runs(sourceId)).filter((r) => r.kind === 'webhook');
}

describe('app-webhook events through the queue', () => {
  it('pre-processes a signed event over its exact bytes, answers the app reply, and applies it as a delta', async () => {
    // Spacing a JSON parser would not keep: the signature only matches the bytes as sent.
    const body = '{ "accountId": "acct-7",  "kind": "changed", "note": { "id": "n2", "text": "Pushed" } }';
    const answer = await post(body);
    expect(answer).toEqual({ status: 200, body: { received: true } });
    expect(seen.rawBodies.at(-1)).toBe(body);
    const [run] = await webhookRuns();
    await ws.apps.waitFor(run?.id as string);
    expect(await ws.apps.run(run?.id as string)).toMatchObject({
      status: 'succeeded',
      mode: 'delta',
      rowsSet: 1,
    });
    expect(await notes()).toEqual({ n1: 'First note', n2: 'Pushed' });

    const removal = await post('{"accountId":"acct-7","kind":"deleted","note":{"id":"n1"}}');
    expect(removal.status).toBe(200);
    for (const r of await webhookRuns()) await ws.apps.waitFor(r.id);
    expect(await notes()).toEqual({ n2: 'Pushed' });
  });

  it('refuses a forged signature before anything is queued', async () => {
    const before = (await webhookRuns()).length;
    const transforms = seen.transforms;
    const forged = await post('{"accountId":"acct-7","kind":"deleted","note":{"id":"n2"}}', 'sha256=00ff');
    expect(forged.status).toBe(401);
    expect(forged.body.message).toMatch(/signature/i);
    expect((await webhookRuns()).length).toBe(before);
    expect(seen.transforms).toBe(transforms);
    expect(await notes()).toEqual({ n2: 'Pushed' });
  });

  it('answers an event for another workspace with the reply, and queues nothing for this source', async () => {
    const before = (await webhookRuns()).length;
    const other = await post('{"accountId":"acct-8","kind":"deleted","note":{"id":"n2"}}');
    expect(other).toEqual({ status: 200, body: { received: true } });
    expect((await webhookRuns()).length).toBe(before);
  });
});
