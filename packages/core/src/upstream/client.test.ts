import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkOAuth1Signature } from '../../test/support/oauth1-signature.js';
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidAccountError, TryLaterError, UpstreamError, WeftError } from '../errors/errors.js';
import { basic, bearer, header, oauth1Auth } from './auth.js';
import { createUpstream, parseRetryAfter } from './client.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string, count: number) => void;

interface TestServer {
  url: string;
  requests: { method: string; url: string; headers: IncomingMessage['headers']; body: string; at: number }[];
}

const servers: Server[] = [];

async function serve(handler: Handler): Promise<TestServer> {
  const state: TestServer = { url: '', requests: [] };
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      state.requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body,
        at: Date.now(),
      });
      handler(req, res, body, state.requests.length);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

async function caught(promise: Promise<unknown>): Promise<WeftError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof WeftError) return error;
    throw error;
  }
  throw new Error('expected the request to fail');
}

const fast = { backoff: 1 };

describe('createUpstream: success and JSON', () => {
  it('resolves paths against the base URL, adds query and headers, parses JSON', async () => {
    const server = await serve((_req, res) => json(res, 200, { ok: true }));
    const api = createUpstream({ baseUrl: `${server.url}/api/v2`, headers: { 'X-App': 'weft' } });
    const data = await api.json<{ ok: boolean }>('GET', '/items', {
      query: { page: 2, tag: ['a b', 'c'], x: undefined },
    });
    expect(data).toEqual({ ok: true });
    expect(server.requests[0]?.url).toBe('/api/v2/items?page=2&tag=a+b&tag=c');
    expect(server.requests[0]?.headers['x-app']).toBe('weft');
  });

  it('an empty path is the base address itself, with its query and no trailing slash', async () => {
    const server = await serve((_req, res) => json(res, 200, {}));
    const api = createUpstream({ baseUrl: `${server.url}/hooks/abc?key=k1` });
    await api.post('', { json: { text: 'hi' } });
    expect(server.requests[0]?.url).toBe('/hooks/abc?key=k1');
  });

  it('sends JSON bodies', async () => {
    const server = await serve((_req, res, body) => json(res, 201, { received: JSON.parse(body) }));
    const api = createUpstream({ baseUrl: server.url });
    const data = await api.json('POST', '/things', { json: { name: 'x' } });
    expect(data).toEqual({ received: { name: 'x' } });
    expect(server.requests[0]?.headers['content-type']).toBe('application/json');
  });
});

describe('createUpstream: retries', () => {
  it('retries a GET after a 500 and succeeds', async () => {
    const server = await serve((_req, res, _body, n) =>
      n === 1 ? json(res, 500, { message: 'boom' }) : json(res, 200, [1]),
    );
    const api = createUpstream({ baseUrl: server.url, ...fast });
    expect(await api.json('GET', '/x')).toEqual([1]);
    expect(server.requests).toHaveLength(2);
  });

  it('waits for Retry-After: 1 on a 429 and then succeeds', async () => {
    const server = await serve((_req, res, _body, n) =>
      n === 1 ? json(res, 429, { message: 'slow down' }, { 'retry-after': '1' }) : json(res, 200, { ok: 1 }),
    );
    const api = createUpstream({ baseUrl: server.url, ...fast });
    expect(await api.json('GET', '/x')).toEqual({ ok: 1 });
    expect(server.requests).toHaveLength(2);
    const [first, second] = server.requests;
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(950);
  });

  it('answers tryLater at once when Retry-After outlasts maxRetryAfterSeconds', async () => {
    const server = await serve((_req, res) => json(res, 429, { message: 'quota' }, { 'retry-after': '120' }));
    const api = createUpstream({ baseUrl: server.url, ...fast });
    const error = await caught(api.get('/x'));
    expect(error).toBeInstanceOf(TryLaterError);
    expect(error.status).toBe(429);
    expect(error.tryLater).toBe(true);
    expect(error.retryAfterSeconds).toBe(120);
    expect(error.message).toMatch(/GET http:\/\/127\.0\.0\.1:\d+\/x answered 429/);
    expect(server.requests).toHaveLength(1);
  });

  it('answers tryLater (503) on a 503 with Retry-After when no retries are left', async () => {
    const server = await serve((_req, res) => json(res, 503, {}, { 'retry-after': '1' }));
    const api = createUpstream({ baseUrl: server.url, retries: 0 });
    const error = await caught(api.get('/x'));
    expect(error).toBeInstanceOf(TryLaterError);
    expect(error.status).toBe(503);
    expect(error.retryAfterSeconds).toBe(1);
  });

  it('retries a slow answer after the per-attempt timeout, then answers tryLater', async () => {
    const server = await serve((_req, res) => {
      const timer = setTimeout(() => json(res, 200, {}), 2000);
      res.on('close', () => clearTimeout(timer));
    });
    const api = createUpstream({ baseUrl: server.url, timeoutMs: 100, retries: 2, ...fast });
    const error = await caught(api.get('/slow'));
    expect(error).toBeInstanceOf(TryLaterError);
    expect(error.status).toBe(503);
    expect(error.message).toMatch(/timed out after 100 ms/);
    expect(server.requests).toHaveLength(3);
  });

  it('retries after the connection is reset, then succeeds', async () => {
    const server = await serve((req, res, _body, n) =>
      n === 1 ? req.socket.destroy() : json(res, 200, { ok: 2 }),
    );
    const api = createUpstream({ baseUrl: server.url, ...fast });
    expect(await api.json('GET', '/x')).toEqual({ ok: 2 });
    expect(server.requests).toHaveLength(2);
  });

  it('answers tryLater after retries on a refused connection', async () => {
    const server = await serve(() => {});
    const url = server.url;
    await new Promise((resolve) => servers.pop()!.close(resolve));
    const api = createUpstream({ baseUrl: url, retries: 1, ...fast });
    const error = await caught(api.get('/x'));
    expect(error).toBeInstanceOf(TryLaterError);
    expect(error.message).toMatch(/ECONNREFUSED/);
  });

  it('answers tryLater after retries are exhausted on 5xx', async () => {
    const server = await serve((_req, res) => json(res, 502, { message: 'bad gateway' }));
    const api = createUpstream({ baseUrl: server.url, retries: 2, ...fast });
    const error = await caught(api.delete('/x'));
    expect(error).toBeInstanceOf(TryLaterError);
    expect(error.status).toBe(503);
    expect(error.message).toMatch(/DELETE .*\/x answered 502 after 3 attempts/);
    expect(server.requests).toHaveLength(3);
  });

  it('does not retry a POST on 5xx or on a reset, unless marked idempotent', async () => {
    const failing = await serve((_req, res) => json(res, 500, {}));
    const api = createUpstream({ baseUrl: failing.url, ...fast });
    expect(await caught(api.post('/x', { json: {} }))).toBeInstanceOf(TryLaterError);
    expect(failing.requests).toHaveLength(1);

    const resetting = await serve((req) => req.socket.destroy());
    const api2 = createUpstream({ baseUrl: resetting.url, ...fast });
    expect(await caught(api2.patch('/x', { json: {} }))).toBeInstanceOf(TryLaterError);
    expect(resetting.requests).toHaveLength(1);

    const flaky = await serve((_req, res, _b, n) => (n === 1 ? json(res, 500, {}) : json(res, 200, {})));
    const api3 = createUpstream({ baseUrl: flaky.url, ...fast });
    expect((await api3.post('/x', { json: {}, idempotent: true })).status).toBe(200);
    expect(flaky.requests).toHaveLength(2);
  });

  it('stops waiting at once when the signal aborts', async () => {
    const controller = new AbortController();
    // Abort once the 429 is answered, while the client waits out its Retry-After: on a loaded
    // machine a fixed delay could fire before the request was even sent.
    const server = await serve((_req, res) => {
      json(res, 429, {}, { 'retry-after': '20' });
      setTimeout(() => controller.abort(), 20);
    });
    const api = createUpstream({ baseUrl: server.url, signal: controller.signal });
    const pending = api.get('/x');
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(server.requests).toHaveLength(1);
  });
});

describe('createUpstream: errors', () => {
  it('maps 401 and 403 to InvalidAccountError', async () => {
    const server = await serve((_req, res, _b, n) =>
      json(res, n === 1 ? 401 : 403, { error: 'invalid_token' }),
    );
    const api = createUpstream({ baseUrl: server.url });
    for (const status of [401, 403]) {
      const error = await caught(api.get('/me'));
      expect(error).toBeInstanceOf(InvalidAccountError);
      expect(error.status).toBe(401);
      expect(error.message).toContain(`(${status})`);
    }
    expect(server.requests).toHaveLength(2);
  });

  it('maps other 4xx to UpstreamError with the status and an excerpt, without the query string', async () => {
    const server = await serve((_req, res) => json(res, 422, { errors: [{ message: 'title is required' }] }));
    const api = createUpstream({ baseUrl: server.url });
    const error = await caught(api.post('/issues?api_key=k3y-in-query', { json: {} }));
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error.status).toBe(502);
    expect((error as UpstreamError).upstreamStatus).toBe(422);
    expect(error.message).toMatch(/POST http:\/\/127\.0\.0\.1:\d+\/issues answered 422: title is required/);
    expect(error.message).not.toContain('k3y-in-query');
  });

  it('never puts credentials in error messages, even when the upstream echoes them', async () => {
    const token = 'tok_super_secret_123';
    const server = await serve((req, res) =>
      json(res, 400, { message: `bad header ${req.headers.authorization} / ${req.headers['x-api-key']}` }),
    );
    for (const auth of [bearer(token), basic('alice', token), header('X-Api-Key', token)]) {
      const error = await caught(createUpstream({ baseUrl: server.url, auth }).get('/x'));
      expect(error.message).toContain('[redacted]');
      expect(error.message).not.toContain(token);
      expect(error.message).not.toContain(Buffer.from(`alice:${token}`).toString('base64'));
    }
  });
});

describe('createUpstream: auth', () => {
  it('sends bearer, basic and custom headers', async () => {
    const server = await serve((_req, res) => json(res, 200, {}));
    await createUpstream({ baseUrl: server.url, auth: bearer('t0ken') }).get('/a');
    await createUpstream({ baseUrl: server.url, auth: basic('alice', 'p@ss:word') }).get('/b');
    await createUpstream({ baseUrl: server.url, auth: header('X-Api-Key', 'k3y') }).get('/c');
    expect(server.requests[0]?.headers.authorization).toBe('Bearer t0ken');
    expect(server.requests[1]?.headers.authorization).toBe(
      `Basic ${Buffer.from('alice:p@ss:word').toString('base64')}`,
    );
    expect(server.requests[2]?.headers['x-api-key']).toBe('k3y');
  });

  it('signs OAuth 1.0a requests that a provider can verify (query and form included)', async () => {
    const consumer = { key: 'ck', secret: 'cs-secret' };
    const token = { key: 'at', secret: 'ts-secret' };
    const server = await serve((req, res, body) => {
      const ok =
        typeof checkOAuth1Signature(req, body, {
          origin: `http://127.0.0.1:${(req.socket.localPort ?? 0).toString()}`,
          consumerSecret: consumer.secret,
          tokenSecret: token.secret,
        }) !== 'string';
      json(res, ok ? 200 : 401, { ok });
    });
    const api = createUpstream({
      baseUrl: server.url,
      auth: oauth1Auth({
        consumerKey: consumer.key,
        consumerSecret: consumer.secret,
        token: token.key,
        tokenSecret: token.secret,
      }),
    });
    await api.get('/1.1/statuses', { query: { q: 'hello world!', count: 5 } });
    await api.post('/1.1/update', { form: { status: 'Hi there (*)' } });
    expect(server.requests[0]?.headers.authorization).toMatch(/^OAuth .*oauth_signature_method="HMAC-SHA1"/);

    // A wrong token secret is refused by the provider: the helper maps that to InvalidAccountError.
    const wrong = createUpstream({
      baseUrl: server.url,
      auth: oauth1Auth({
        consumerKey: consumer.key,
        consumerSecret: consumer.secret,
        token: token.key,
        tokenSecret: 'nope',
      }),
    });
    expect(await caught(wrong.get('/1.1/statuses'))).toBeInstanceOf(InvalidAccountError);
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates', () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    expect(parseRetryAfter('7', now)).toBe(7);
    expect(parseRetryAfter('Sun, 22 Nov 2026 10:01:00 GMT', now)).toBe(60);
    expect(parseRetryAfter('Sun, 22 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});
