// One test per defect found by attacking a weft app (hostile keys, secrets in logs, forged
// cursors, oversized and deeply nested input, odd methods and paths). Each failed before its fix.
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  auth,
  bearer,
  createServer,
  createUpstream,
  defineApp,
  field,
  input,
  jsonLogger,
  redact,
  resume,
  silentLogger,
  startServer,
} from '../src/index.js';
import { descriptorBase } from './fixtures/minimal.js';
import { TOKEN, trackerApp } from './fixtures/tracker-app.js';

const PROTO_KEYS = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf'];
const KEYS = ['page-key-one'];

function capture() {
  const lines: string[] = [];
  return { lines, logger: jsonLogger((line) => lines.push(line)) };
}

async function localServer(
  handler: Parameters<typeof createHttpServer>[1],
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createHttpServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const tracker = createServer(trackerApp(), { logger: silentLogger, pageKeys: KEYS });
const account = { token: TOKEN };

describe('defect 1: user-chosen keys are looked up as own properties only', () => {
  test.each(PROTO_KEYS)('datalist field %s is a 404, not a 500', async (key) => {
    const res = await request(tracker)
      .post('/api/v1/synchronizer/datalist')
      .send({ field: key, account, types: [], dependsOn: {} });
    expect(res.status).toBe(404);
    expect(res.body.message).toContain('is not a datalist filter');
  });
  test.each(PROTO_KEYS)('type, action, auth and filter id %s never give a 5xx', async (key) => {
    const answers = await Promise.all([
      request(tracker)
        .post('/api/v1/synchronizer/data')
        .send({ requestedType: key, types: [key], account, filter: {}, pagination: null }),
      request(tracker)
        .post('/api/v1/automations/action/execute')
        .send({ action: { action: key, args: { [key]: 'x' } }, account }),
      request(tracker)
        .post('/validate')
        .send({ id: key, fields: { [key]: 'x' } }),
      request(tracker)
        .post('/api/v1/synchronizer/schema')
        .send({ types: [key], account, filter: { [key]: 'x' } }),
      request(tracker)
        .post('/api/v1/synchronizer/data')
        .send({ requestedType: 'issue', types: ['issue'], account: { ...account, auth: key }, filter: {} }),
    ]);
    for (const res of answers) {
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(500);
      expect(res.headers['content-type']).toMatch(/json/);
    }
  });
});

describe('defect 2: secrets never reach a log line', () => {
  test("a handler's ctx.log redacts the account and secret-named keys", async () => {
    const { lines, logger } = capture();
    const app = defineApp({
      id: 'logs',
      name: 'Logs',
      ...descriptorBase,
      authentication: [
        auth.fields({ id: 'key', name: 'Key', fields: { apiKey: input.password({ name: 'API key' }) } }),
      ],
      sync: {
        types: {
          t: {
            name: 'T',
            fields: { id: field.id(), name: field.text() },
            async *data({ account: a, log }) {
              log.info({ account: a, header: `Bearer ${a.apiKey}`, nested: { x: [a.apiKey] } }, 'starting');
              log.warn({}, `calling with ${a.apiKey}`);
              yield { id: '1' };
            },
          },
        },
      },
    });
    const res = await request(createServer(app, { logger, pageKeys: KEYS }))
      .post('/api/v1/synchronizer/data')
      .send({ requestedType: 't', types: ['t'], account: { apiKey: 'key-SECRET-4242' }, filter: {} });
    expect(res.status).toBe(200);
    const all = lines.join('');
    expect(all).toContain('starting');
    expect(all).not.toContain('SECRET-4242');
  });

  test('the upstream retry warning keeps a secret path out of the log', async () => {
    const { lines, logger } = capture();
    let calls = 0;
    const upstream = await localServer((_req, res) => {
      calls += 1;
      res.writeHead(calls === 1 ? 503 : 200, { 'content-type': 'application/json' });
      res.end('{}');
    });
    try {
      const secretPath = '/hooks/T1/B2/hookSecretSegment77';
      const api = createUpstream({
        baseUrl: `${upstream.url}${secretPath}`,
        secrets: [secretPath],
        log: logger,
        backoff: 1,
      });
      await api.get('');
      expect(lines.join('')).toContain('Retrying');
      expect(lines.join('')).not.toContain('hookSecretSegment77');
    } finally {
      await upstream.close();
    }
  });

  test('base64 and URL-encoded forms and parts of a secret URL are redacted', () => {
    const secret = 'cl1ent-s3cret/+=&x';
    const basic = Buffer.from(`my-client:${secret}`).toString('base64');
    const text = `got Basic ${basic}, form ${encodeURIComponent(secret)}, b64 ${Buffer.from(secret).toString('base64url')}`;
    const out = redact(text, [secret]);
    expect(out).not.toContain(basic.slice(16));
    expect(out).not.toContain(encodeURIComponent(secret));
    expect(out).not.toContain(Buffer.from(secret).toString('base64url').slice(4, -4));
    const url = 'https://hooks.example.com/services/T0001/B0002/zzSecretTail99';
    expect(redact('unknown webhook zzSecretTail99', [url])).not.toContain('zzSecretTail99');
  });

  test('a provider echoing the Authorization header does not leak base64 client:secret', async () => {
    const provider = await localServer((req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ error: 'invalid_client', error_description: `bad ${req.headers.authorization}` }),
      );
    });
    try {
      const clientSecret = 'oauth2-client-SECRET-9911';
      const app = defineApp({
        id: 'o2',
        name: 'O2',
        ...descriptorBase,
        authentication: [
          auth.oauth2({
            authorizeUrl: `${provider.url}/authorize`,
            tokenUrl: `${provider.url}/token`,
            clientId: 'weft-client',
            clientSecret,
          }),
        ],
        sync: {
          types: { t: { name: 'T', fields: { id: field.id(), name: field.text() }, async *data() {} } },
        },
      });
      const { lines, logger } = capture();
      const res = await request(createServer(app, { logger, pageKeys: KEYS }))
        .post('/oauth2/v1/access_token')
        .send({ code: 'c0de-123', fields: { callback_uri: 'https://svc.example/cb' } });
      expect(res.status).toBe(401);
      const basic = Buffer.from(`weft-client:${clientSecret}`).toString('base64');
      const seen = JSON.stringify(res.body) + lines.join('');
      expect(seen).toContain('invalid_client');
      expect(seen).not.toContain(basic.slice(-16));
      expect(seen).not.toContain(clientSecret);
    } finally {
      await provider.close();
    }
  });
});

function pagedApp() {
  return defineApp({
    id: 'paged',
    name: 'Paged',
    ...descriptorBase,
    authentication: [auth.none()],
    pageSize: 2,
    sync: {
      types: {
        row: {
          name: 'Row',
          fields: { id: field.id(), name: field.text() },
          async *data({ cursor }) {
            const start = typeof cursor === 'number' ? cursor : 0;
            for (let n = start; n < 6; n += 1) {
              yield { id: `r${n}` };
              yield resume(n + 1);
            }
          },
        },
        other: { name: 'Other', fields: { id: field.id(), name: field.text() }, async *data() {} },
      },
    },
  });
}

describe('defect 4: page state is signed', () => {
  const page = (server: ReturnType<typeof createServer>, pagination: unknown, type = 'row') =>
    request(server)
      .post('/api/v1/synchronizer/data')
      .send({ requestedType: type, types: [type], account: {}, filter: {}, pagination });

  test('a cursor issued by the app resumes; a forged, tampered or foreign one is a 400', async () => {
    const server = createServer(pagedApp(), { logger: silentLogger, pageKeys: KEYS });
    const first = await page(server, null);
    const next = first.body.pagination.nextPageConfig;
    expect(typeof next).toBe('object');
    expect((await page(server, next)).body.items).toEqual([{ id: 'r2' }, { id: 'r3' }]);
    const forged = await page(server, { weft: 1, type: 'row', cursor: 4, skip: 0 });
    expect(forged.status).toBe(400);
    const tampered = JSON.parse(
      JSON.stringify(next).replace(/"sig":"(.)/, (_m, c) => `"sig":"${c === 'A' ? 'B' : 'A'}`),
    );
    expect((await page(server, tampered)).status).toBe(400);
    const otherKey = createServer(pagedApp(), { logger: silentLogger, pageKeys: ['another-key'] });
    expect((await page(otherKey, next)).status).toBe(400);
    expect((await page(server, next, 'other')).status).toBe(400);
  });

  test('a deeply nested pagination is a 400, not a 500', async () => {
    const server = createServer(pagedApp(), { logger: silentLogger, pageKeys: KEYS });
    let deep: unknown = 1;
    for (let i = 0; i < 5_000; i += 1) deep = { a: deep };
    const res = await page(server, { weft: 1, type: 'row', cursor: deep, skip: 0 });
    expect(res.status).toBe(400);
  });

  test('rotated keys: the first key signs, every key verifies', async () => {
    const old = createServer(pagedApp(), { logger: silentLogger, pageKeys: ['old-key'] });
    const rotated = createServer(pagedApp(), { logger: silentLogger, pageKeys: ['new-key', 'old-key'] });
    const issuedByOld = (await page(old, null)).body.pagination.nextPageConfig;
    expect((await page(rotated, issuedByOld)).status).toBe(200);
    const issuedByNew = (await page(rotated, null)).body.pagination.nextPageConfig;
    expect((await page(old, issuedByNew)).status).toBe(400);
  });
});

describe('defect 5: echoed and logged user values are capped', () => {
  test('a 200 kB requestedType comes back in a short 404 and a short log line', async () => {
    const { lines, logger } = capture();
    const huge = 'x'.repeat(200_000);
    const res = await request(createServer(trackerApp(), { logger, pageKeys: KEYS }))
      .post('/api/v1/synchronizer/data')
      .send({ requestedType: huge, types: [], account, filter: {} });
    expect(res.status).toBe(404);
    expect(res.body.message.length).toBeLessThan(1_100);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line.length).toBeLessThan(4_000);
  });
});

describe('defect 6: nesting depth and per-route body limits', () => {
  test('a body nested deeper than the limit is refused as a 400 before it is used', async () => {
    const depth = 100_000;
    const body = `{"requestedType":"issue","types":["issue"],"account":{},"filter":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    const res = await request(tracker).post('/api/v1/synchronizer/data').type('json').send(body);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/nested/);
  });
  test('small routes refuse a 300 kB body; webhook payloads take it', async () => {
    const big = 'y'.repeat(300_000);
    const validate = await request(tracker)
      .post('/validate')
      .send({ id: 'token', fields: { token: big } });
    expect(validate.status).toBe(413);
    expect(validate.body.message).toBeTruthy();
    const transform = await request(tracker)
      .post('/api/v1/synchronizer/webhooks/transform')
      .send({ params: {}, payload: { text: big }, account, filter: {}, types: ['issue'] });
    expect(transform.status).not.toBe(413);
  });
});

describe('defect 7: a lone UTF-16 surrogate in OAuth 1 input is a 400', () => {
  const app = defineApp({
    id: 'o1',
    name: 'O1',
    ...descriptorBase,
    authentication: [
      auth.oauth1({
        requestTokenUrl: 'http://127.0.0.1:9/request_token',
        authorizeUrl: 'http://127.0.0.1:9/authorize',
        accessTokenUrl: 'http://127.0.0.1:9/access_token',
        consumerKey: 'ck',
        consumerSecret: 'cs-secret',
      }),
    ],
    sync: { types: { t: { name: 'T', fields: { id: field.id(), name: field.text() }, async *data() {} } } },
  });
  test.each([
    [
      '/oauth1/v1/access_token',
      { oauth_verifier: 'v\ud800', fields: { access_token: 'a', access_secret: 's' } },
    ],
    [
      '/oauth1/v1/access_token',
      { oauth_verifier: 'v', fields: { access_token: '\udfff', access_secret: 's' } },
    ],
    ['/oauth1/v1/authorize', { callback_uri: 'https://svc.example/cb\ud800' }],
  ])('%s %j', async (path, body) => {
    const res = await request(createServer(app, { logger: silentLogger, pageKeys: KEYS }))
      .post(path)
      .send(body);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/UTF-16|surrogate|text/i);
  });
});

describe('defect 8: every answer is JSON, OPTIONS and wrong methods included', () => {
  test.each(['/', '/validate', '/api/v1/synchronizer/data', '/oauth2/v1/authorize', '/nowhere'])(
    'OPTIONS %s',
    async (path) => {
      const res = await request(tracker).options(path);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(res.body.message).toBeTruthy();
    },
  );
  test('GET on a POST endpoint is a JSON 405 naming the allowed method', async () => {
    const res = await request(tracker).get('/validate');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST');
    expect(res.body.message).toContain('POST');
  });
});

describe('defect 9: headers, strict routes and server limits', () => {
  test('token-bearing answers are not cached; nothing is sniffed', async () => {
    const res = await request(tracker)
      .post('/validate')
      .send({ id: 'token', fields: { token: TOKEN } });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    const missing = await request(tracker).get('/nowhere');
    expect(missing.headers['x-content-type-options']).toBe('nosniff');
  });
  test.each(['/VALIDATE', '/validate/', '/Api/v1/synchronizer/data', '/api/v1/synchronizer/data/'])(
    'route matching is strict: %s is a 404',
    async (path) => {
      const res = await request(tracker)
        .post(path)
        .send({ id: 'token', fields: { token: TOKEN } });
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/json/);
    },
  );
  describe('startServer', () => {
    let running: Awaited<ReturnType<typeof startServer>>;
    beforeAll(async () => {
      running = await startServer(trackerApp(), {
        port: 0,
        host: '127.0.0.1',
        announce: false,
        logger: silentLogger,
        pageKeys: KEYS,
        maxConnections: 77,
      });
    });
    afterAll(() => running.close());
    test('sets a connection cap and explicit timeouts', () => {
      expect(running.server.maxConnections).toBe(77);
      expect(running.server.headersTimeout).toBe(10_000);
      expect(running.server.requestTimeout).toBe(30_000);
      expect(running.server.keepAliveTimeout).toBe(5_000);
    });
    test('a busy port is a clear error, never "listening"', async () => {
      await expect(
        startServer(trackerApp(), {
          port: running.port,
          host: '127.0.0.1',
          announce: false,
          logger: silentLogger,
          exitOnError: false,
        }),
      ).rejects.toThrow(`port ${running.port} is already in use`);
    });
  });
});

// Keep the upstream helper exercised with an auth builder too: its secrets are redacted.
test('an upstream 401 message never carries the bearer token, in any encoding', async () => {
  const token = 'bearer-TOKEN-secret-55';
  const upstream = await localServer((req, res) => {
    res.writeHead(401, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ message: `refused ${encodeURIComponent(req.headers.authorization ?? '')}` }));
  });
  try {
    const api = createUpstream({ baseUrl: upstream.url, auth: bearer(token), retries: 0 });
    const error = await api.get('/x').catch((e: Error) => e);
    expect(String((error as Error).message)).toContain('refused');
    expect(String((error as Error).message)).not.toContain(encodeURIComponent(token));
  } finally {
    await upstream.close();
  }
});

describe('found by the fuzzer', () => {
  test('OPTIONS on an OAuth path is a JSON 405, not the OAuth router plain-text answer', async () => {
    const { kitchenSinkApp } = await import('./fixtures/kitchen-sink.js');
    const server = createServer(kitchenSinkApp(), { logger: silentLogger, pageKeys: KEYS });
    for (const path of ['/oauth2/v1/authorize', '/oauth1/v1/access_token']) {
      const res = await request(server).options(path);
      expect(res.status).toBe(405);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(res.headers.allow).toBe('POST');
    }
  });
  test('a request Node cannot parse is answered in JSON', async () => {
    const { connect } = await import('node:net');
    const running = await startServer(trackerApp(), {
      port: 0,
      host: '127.0.0.1',
      announce: false,
      logger: silentLogger,
      pageKeys: KEYS,
    });
    try {
      const socket = connect(running.port, '127.0.0.1');
      let received = '';
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString();
      });
      socket.write('POST /validate HTTP/1.1\r\nHost: app\r\nContent-Length: nope\r\n\r\n');
      await new Promise((resolve) => socket.once('close', resolve));
      expect(received).toMatch(/^HTTP\/1\.1 400/);
      expect(received).toContain('{"message":"Malformed HTTP request"}');
    } finally {
      await running.close();
    }
  });
});
