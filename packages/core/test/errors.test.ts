import request from 'supertest';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Logger, auth, createServer, defineApp, field } from '../src/index.js';
import { descriptorBase } from './fixtures/minimal.js';
import { type TestApp, testApp } from '../src/testing/index.js';
import { TOKEN, trackerApp } from './fixtures/tracker-app.js';

function memoryLogger() {
  const lines: Array<Record<string, unknown> & { level: string; msg?: string }> = [];
  const at = (level: string) => (fields: Record<string, unknown>, msg?: string) =>
    lines.push({ level, msg, ...fields });
  const logger: Logger = { info: at('info'), warn: at('warn'), error: at('error') };
  return { logger, lines };
}

const account = { token: TOKEN };
let app: TestApp;
const log = memoryLogger();
beforeAll(async () => {
  app = await testApp(trackerApp({ timeoutMs: 300 }), { logger: log.logger });
});
afterAll(() => app.close());

describe('error answers are JSON {message} with the right status', () => {
  test('malformed JSON is a 400 JSON answer, not an HTML page', async () => {
    const res = await fetch(`${app.url}/api/v1/synchronizer/data`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"requestedType":',
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(await res.json()).toEqual({ message: 'Request body is not valid JSON' });
  });

  test('a body that is not an object is a 400', async () => {
    const res = await app.post('/api/v1/synchronizer/data', [1, 2]);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'The request body must be a JSON object' });
  });

  test('a missing requestedType is a 400 naming it', async () => {
    const res = await app.post('/api/v1/synchronizer/data', { types: ['issue'], account });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'Invalid request: "requestedType" is required' });
  });

  test('an unknown type is a 404 JSON answer', async () => {
    const res = await app.data('nope', { account });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'Unknown type "nope"' });
  });

  test('an invalid account is a 401', async () => {
    const missing = await app.data('issue', {});
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({ message: 'Account field "token" is required' });
    const refused = await app.data('issue', { account: { token: 'not-the-token' } });
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ message: 'The account is not valid' });
  });

  test('an upstream rate limit is {message, tryLater: true} with a 429 and Retry-After', async () => {
    const res = await app.data('issue', { account, filter: { behaviour: 'rate-limit' } });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('30');
    expect(res.body).toEqual({ message: 'Upstream rate limit', tryLater: true });
  });

  test('a handler that never resolves times out instead of hanging', async () => {
    const res = await app.data('issue', { account, filter: { behaviour: 'hang' } });
    expect(res.status).toBe(504);
    expect(res.body).toEqual({
      message: 'The app did not answer /api/v1/synchronizer/data within 300 ms',
      tryLater: true,
    });
  });

  test('an unexpected error is a 500 with a generic message: no stack, no secret, logged redacted', async () => {
    const res = await app.data('issue', { account, filter: { behaviour: 'crash' } });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ message: 'Internal error in the app' });
    const logged = log.lines.find((l) => l.msg === 'unexpected error in handler');
    expect(logged?.stack).toContain('database exploded near [redacted]');
    expect(JSON.stringify(log.lines)).not.toContain(TOKEN);
  });
});

describe('createServer', () => {
  test('answers unknown paths with a JSON 404 (supertest)', async () => {
    const res = await request(createServer(trackerApp(), { logger: memoryLogger().logger })).get('/wp-admin');
    expect(res.status).toBe(404);
    expect(res.type).toBe('application/json');
    expect(res.body).toEqual({ message: 'No such endpoint: GET /wp-admin' });
  });
  test('a body over the limit is a 413 JSON answer', async () => {
    const server = createServer(trackerApp(), { logger: memoryLogger().logger, bodyLimit: 100 });
    const res = await request(server)
      .post('/api/v1/synchronizer/data')
      .send({ requestedType: 'issue', padding: 'x'.repeat(500) });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ message: 'Request body is too large' });
  });
});

describe('request log', () => {
  test('a request the service abandons is logged as aborted, and the handler is signalled', async () => {
    const local = memoryLogger();
    let signalled: unknown;
    const running = await testApp(
      defineApp({
        id: 'abandon',
        name: 'Abandon',
        ...descriptorBase,
        timeoutMs: 5_000,
        authentication: [auth.none()],
        sync: {
          types: {
            issue: {
              name: 'Issue',
              fields: { id: field.id(), name: field.text() },
              async *data({ signal }) {
                await new Promise((resolve) => signal.addEventListener('abort', resolve));
                signalled = signal.reason;
              },
            },
          },
        },
      }),
      { logger: local.logger },
    );
    const controller = new AbortController();
    const pending = fetch(`${running.url}/api/v1/synchronizer/data`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ requestedType: 'issue' }),
      signal: controller.signal,
    }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 100));
    controller.abort();
    await pending;
    await expect
      .poll(() => local.lines.find((l) => l.msg === 'request'))
      .toMatchObject({
        status: 499,
        aborted: true,
        route: 'data',
      });
    await expect.poll(() => String(signalled), { timeout: 15_000 }).toContain('closed the connection');
    await running.close();
  });

  test('one line per request with route, status, duration, operation and correlation ids, no secrets', async () => {
    const local = memoryLogger();
    const server = createServer(trackerApp(), { logger: local.logger });
    await request(server)
      .post('/api/v1/synchronizer/data')
      .set('x-correlation-id', 'corr-7')
      .send({ requestedType: 'issue', account, operationId: 'op-42' });
    await request(server)
      .post('/validate')
      .send({ id: 'token', fields: { token: 'bad-token-xyz' } });
    const requests = local.lines.filter((l) => l.msg === 'request');
    expect(requests).toHaveLength(2);
    expect(requests[0]).toMatchObject({
      level: 'info',
      method: 'POST',
      path: '/api/v1/synchronizer/data',
      route: 'data',
      status: 200,
      requestedType: 'issue',
      operationId: 'op-42',
      correlationId: 'corr-7',
    });
    expect(typeof requests[0]!.durationMs).toBe('number');
    expect(requests[1]).toMatchObject({ level: 'warn', status: 401, error: 'Token [redacted] was refused' });
    expect(JSON.stringify(local.lines)).not.toContain('bad-token-xyz');
    expect(JSON.stringify(local.lines)).not.toContain(TOKEN);
  });
});
