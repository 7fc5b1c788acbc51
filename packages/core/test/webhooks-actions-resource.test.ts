import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { auth, defineApp, field, input, signHmac, verifyHmacSignature } from '../src/index.js';
import { schemaResponse, webhookTransformResponse } from '../src/protocol/index.js';
import { descriptorBase, emptyType } from './fixtures/minimal.js';
import { type TestApp, testApp } from '../src/testing/index.js';
import { TOKEN, trackerApp } from './fixtures/tracker-app.js';

const account = { token: TOKEN };
let app: TestApp;
beforeAll(async () => {
  app = await testApp(trackerApp());
});
afterAll(() => app.close());

describe('webhooks', () => {
  test('install answers {id, events}; reinstall gets the previous webhook back', async () => {
    const first = await app.post('/api/v1/synchronizer/webhooks', {
      types: ['issue'],
      filter: {},
      account,
      webhook: null,
    });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ id: 'wh-1', events: ['issue.created', 'issue.deleted'] });
    const again = await app.post('/api/v1/synchronizer/webhooks', {
      types: ['issue'],
      filter: {},
      account,
      webhook: { id: 'wh-9' },
    });
    expect(again.body.id).toBe('wh-9');
  });
  test('DELETE removes it (204) and a failure is an error status with {message}', async () => {
    expect(
      (await app.request('DELETE', '/api/v1/synchronizer/webhooks', { account, webhook: { id: 'wh-1' } }))
        .status,
    ).toBe(204);
    const failed = await app.request('DELETE', '/api/v1/synchronizer/webhooks', {
      account,
      webhook: { id: 'missing' },
    });
    expect(failed.status).toBe(404);
    expect(failed.body).toEqual({ message: 'No such webhook' });
    const noWebhook = await app.request('DELETE', '/api/v1/synchronizer/webhooks', { account });
    expect(noWebhook.status).toBe(400);
    expect(noWebhook.body.message).toBe('Invalid request: "webhook" is required');
  });
  test('verify answers the webhook id, or an error with {message}', async () => {
    expect(
      (await app.post('/api/v1/synchronizer/webhooks/verify', { params: {}, payload: { webhookId: 'wh-1' } }))
        .body,
    ).toEqual({
      id: 'wh-1',
    });
    const bad = await app.post('/api/v1/synchronizer/webhooks/verify', { params: {}, payload: {} });
    expect(bad.status).toBe(401);
    expect(bad.body).toEqual({ message: 'Unknown webhook' });
  });
  test('transform answers rows with __syncAction that match the type schema', async () => {
    const res = await app.post('/api/v1/synchronizer/webhooks/transform', {
      params: {},
      payload: { created: ['i-100'], deleted: ['i-3'] },
      types: ['issue'],
      filter: {},
      account,
    });
    expect(res.status).toBe(200);
    expect(webhookTransformResponse.parse(res.body)).toBeTruthy();
    expect(res.body).toEqual({
      data: {
        issue: [
          { id: 'i-100', name: 'Issue i-100', __syncAction: 'SET' },
          { id: 'i-3', __syncAction: 'REMOVE' },
        ],
      },
    });
    const schema = schemaResponse.parse((await app.schema(['issue'])).body).issue!;
    for (const row of res.body.data.issue) {
      for (const key of Object.keys(row)) expect(schema).toHaveProperty(key);
    }
  });
  test('pre-process gets the raw body and headers and answers a reply plus the workspaces it concerns', async () => {
    const res = await fetch(`${app.url}/api/v1/synchronizer/webhooks/pre-process`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-account': 'acct-77' },
      body: 'a=1&b=2',
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ reply: { ok: true, length: 7 }, workspaceIds: ['acct-77'] });
  });
  test('a signed webhook flow: valid signature accepted, tampered, missing and stale rejected', async () => {
    const secret = 'whsec-test-1';
    const signed = await testApp(
      defineApp({
        id: 'signed',
        name: 'Signed',
        ...descriptorBase,
        authentication: [auth.none()],
        sync: {
          types: { t: emptyType },
          webhooks: {
            install: async () => ({ id: 'w', events: [] }),
            uninstall: async () => {},
            verify: async () => 'w',
            transform: async () => ({}),
            preProcess: async ({ rawBody, headers }) => {
              verifyHmacSignature({
                secret,
                rawBody,
                signature: headers['x-signature'] as string | undefined,
                timestamp: headers['x-timestamp'] as string | undefined,
                prefix: 'sha256=',
              });
              return { workspaceIds: [JSON.parse(rawBody.toString()).account] };
            },
          },
        },
      }),
    );
    const body = JSON.stringify({ account: 'a-1' });
    const now = String(Math.floor(Date.now() / 1000));
    const send = (headers: Record<string, string>, payload = body) =>
      fetch(`${signed.url}/api/v1/synchronizer/webhooks/pre-process`, {
        method: 'POST',
        headers,
        body: payload,
      });
    const signature = signHmac({
      secret,
      rawBody: body,
      timestamp: now,
      algorithm: 'sha256',
      prefix: 'sha256=',
    });
    const ok = await send({ 'x-signature': signature, 'x-timestamp': now });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ reply: {}, workspaceIds: ['a-1'] });
    const tampered = await send({ 'x-signature': signature, 'x-timestamp': now }, body.replace('a-1', 'a-2'));
    expect(tampered.status).toBe(401);
    expect(((await tampered.json()) as { message: string }).message).toMatch(/signature/i);
    const missing = await send({ 'x-timestamp': now });
    expect(missing.status).toBe(401);
    const old = String(Math.floor(Date.now() / 1000) - 3600);
    const stale = await send({
      'x-signature': signHmac({ secret, rawBody: body, timestamp: old, prefix: 'sha256=' }),
      'x-timestamp': old,
    });
    expect(stale.status).toBe(401);
    expect(JSON.stringify(await stale.json())).not.toContain(secret);
    await signed.close();
  });
});

describe('actions', () => {
  test('success is a 200 with {}', async () => {
    const res = await app.execute('comment', { issue: 'i-1', text: 'Looks good', extra: 'ignored' }, account);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
  });
  test('a failure is an error status with {message}, never a 2xx', async () => {
    const res = await app.execute('comment', { issue: 'locked', text: 'x' }, account);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ message: 'Issue locked is locked' });
  });
  test('an unknown action is a 404', async () => {
    const res = await app.execute('delete-everything', {}, account);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'Unknown action "delete-everything"' });
  });
  test('arguments are checked before running', async () => {
    const missing = await app.execute('comment', { issue: 'i-1' }, account);
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ message: 'Argument "text" of action "comment" is required' });
    const wrong = await app.execute('comment', { issue: { id: 1 }, text: 'x' }, account);
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toBe('Argument "issue" of action "comment" must be text');
  });
  test('an invalid account is a 401', async () => {
    const res = await app.execute('comment', { issue: 'i-1', text: 'x' }, { token: 'nope-nope' });
    expect(res.status).toBe(401);
  });
  test('a malformed execute body is a 400', async () => {
    const res = await app.post('/api/v1/automations/action/execute', { action: 'comment' });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('"action"');
  });
});

describe('resource', () => {
  test('streams the file with its type and name', async () => {
    const res = await fetch(`${app.url}/api/v1/synchronizer/resource`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ types: ['issue'], account, filter: {}, params: { name: 'report' } }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    expect(res.headers.get('content-disposition')).toContain('report.txt');
    expect(await res.text()).toBe('file report');
  });
  test('the handler time limit bounds producing the file, not a slow download', async () => {
    const slow = await testApp(
      defineApp({
        id: 'slow',
        name: 'Slow',
        ...descriptorBase,
        timeoutMs: 150,
        authentication: [auth.none()],
        sync: {
          types: { t: emptyType },
          resource: async () => ({
            fileName: 'résumé.txt',
            body: Readable.from(
              (async function* () {
                for (let i = 0; i < 5; i += 1) {
                  await new Promise((r) => setTimeout(r, 80));
                  yield `part ${i};`;
                }
              })(),
            ),
          }),
        },
      }),
    );
    const res = await fetch(`${slow.url}/api/v1/synchronizer/resource`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ params: {} }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain("filename*=UTF-8''r%C3%A9sum%C3%A9.txt");
    expect(await res.text()).toBe('part 0;part 1;part 2;part 3;part 4;');
    await slow.close();
  });
  test('a missing file is an error status with {message}', async () => {
    const res = await app.post('/api/v1/synchronizer/resource', { account, params: { name: 'missing' } });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'No such file' });
  });
  test('a large file is streamed chunk by chunk, never buffered whole', async () => {
    const chunk = Buffer.alloc(64 * 1024, 7);
    const chunks = 512; // 32 MiB
    let produced = 0;
    const big = await testApp(
      defineApp({
        id: 'files',
        name: 'Files',
        ...descriptorBase,
        authentication: [auth.none()],
        sync: {
          filters: { folder: input.text({ name: 'Folder', optional: true }) },
          types: {
            t: {
              name: 'T',
              fields: { id: field.id(), name: field.text(), file: field.files() },
              async *data() {},
            },
          },
          resource: async () => ({
            contentType: 'application/octet-stream',
            size: chunk.length * chunks,
            body: Readable.from(
              (function* () {
                for (let i = 0; i < chunks; i += 1) {
                  produced += 1;
                  yield chunk;
                }
              })(),
            ),
          }),
        },
      }),
    );
    const res = await fetch(`${big.url}/api/v1/synchronizer/resource`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ params: {} }),
    });
    expect(res.headers.get('content-length')).toBe(String(chunk.length * chunks));
    const reader = res.body!.getReader();
    let bytes = ((await reader.read()).value as Uint8Array).length;
    // The reader stalls: with backpressure the producer stops once the socket buffers are full.
    await new Promise((r) => setTimeout(r, 300));
    expect(produced).toBeLessThan(chunks / 2);
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += (value as Uint8Array).length;
    }
    expect(bytes).toBe(chunk.length * chunks);
    expect(produced).toBe(chunks);
    await big.close();
  });
});
