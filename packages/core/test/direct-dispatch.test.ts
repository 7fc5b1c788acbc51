// A request for one of the protocol's routes is answered without the router's walk over its
// layers (src/router/direct-dispatch.ts): the same middleware in the same order, then the route.
// Every other request walks the router as before, and every answer is the one the walk gives.
import type { Express, RequestHandler } from 'express';
import request from 'supertest';
import { describe, expect, test } from 'vitest';
import { auth, createServer, defineApp, field, jsonLogger, resume, silentLogger } from '../src/index.js';
import type { RouterOptions } from '../src/router/router-options.js';
import { descriptorBase } from './fixtures/minimal.js';

const app = defineApp({
  id: 'direct',
  name: 'Direct',
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
          if (start >= 6) return;
          yield [
            { id: `r${start}`, name: 'a' },
            { id: `r${start + 1}`, name: 'b' },
          ];
          yield resume(start + 2);
          yield { id: `r${start + 2}`, name: 'c' };
        },
      },
      broken: {
        name: 'Broken',
        fields: { id: field.id(), name: field.text() },
        // biome-ignore lint/correctness/useYield: a handler that fails before its first row
        async *data() {
          throw new Error('upstream down');
        },
      },
    },
  },
});

const SECRET = 'a-shared-secret-of-length';

/** The same server twice: as createServer makes it, and with the router's own walk for every request. */
function pair(options: RouterOptions) {
  const direct = createServer(app, { logger: silentLogger, pageKeys: ['k'], ...options });
  const walked = createServer(app, { logger: silentLogger, pageKeys: ['k'], ...options });
  // The direct dispatch is the router's own `handle`; without it the prototype's walk runs.
  delete (walked.router as unknown as { handle?: unknown }).handle;
  return { direct, walked };
}

/** A middleware spliced into the router's stack just before the route table's layer. */
function spyBeforeRoutes(server: Express): string[] {
  const seen: string[] = [];
  const spy: RequestHandler = (req, _res, next) => {
    seen.push(`${req.method} ${req.path}`);
    next();
  };
  const stack = server.router.stack as Array<{ handle: { name?: string } }>;
  server.use(spy);
  const layer = stack.pop()!;
  stack.splice(
    stack.findIndex((l) => l.handle.name === 'protocolRoutes'),
    0,
    layer,
  );
  return seen;
}

type Ask = (http: ReturnType<typeof request>) => request.Test;

const firstPage = { requestedType: 'row', types: ['row'], account: {}, filter: {}, pagination: null };
const asks: Record<string, Ask> = {
  descriptor: (http) => http.get('/'),
  'descriptor, HEAD': (http) => http.head('/'),
  logo: (http) => http.get('/logo'),
  validate: (http) => http.post('/validate').send({ id: 'none', fields: {} }),
  'validate, query string': (http) => http.post('/validate?x=1').send({ id: 'none', fields: {} }),
  'validate, unknown auth': (http) => http.post('/validate').send({ id: 'nope', fields: {} }),
  'validate, not JSON': (http) =>
    http.post('/validate').set('content-type', 'application/json').send('{"id":'),
  'validate, too deep': (http) =>
    http
      .post('/validate')
      .set('content-type', 'application/json')
      .send(`${'['.repeat(100)}${']'.repeat(100)}`),
  'validate, too large': (http) =>
    http.post('/validate').send({ id: 'none', fields: { big: 'x'.repeat(300_000) } }),
  'validate, charset': (http) =>
    http
      .post('/validate')
      .set('content-type', 'application/json; charset=utf-8')
      .send(JSON.stringify({ id: 'none', fields: {} })),
  'data, first page': (http) => http.post('/api/v1/synchronizer/data').send(firstPage),
  'data, forged cursor': (http) =>
    http.post('/api/v1/synchronizer/data').send({
      ...firstPage,
      pagination: { weft: 2, type: 'row', state: 'eyJjIjo0LCJzIjowfQ', sig: 'A'.repeat(43) },
    }),
  'data, unknown type': (http) =>
    http.post('/api/v1/synchronizer/data').send({ ...firstPage, requestedType: 'nope', types: ['nope'] }),
  'data, failing handler': (http) =>
    http.post('/api/v1/synchronizer/data').send({ ...firstPage, requestedType: 'broken', types: ['broken'] }),
  'data, body not an object': (http) => http.post('/api/v1/synchronizer/data').send([1, 2]),
  'wrong method': (http) => http.get('/validate'),
  OPTIONS: (http) => http.options('/validate'),
  'unknown path': (http) => http.post('/nope').send({}),
  'another case': (http) => http.post('/Validate').send({ id: 'none', fields: {} }),
  'trailing slash': (http) => http.post('/validate/').send({ id: 'none', fields: {} }),
};

const HEADERS = [
  'content-type',
  'content-length',
  'x-content-type-options',
  'cache-control',
  'allow',
  'location',
  'x-weft-replayed-rows',
  'x-weft-time-limit',
];

/** What a client sees of an answer: status, the headers that matter, the body. */
async function seen(ask: request.Test) {
  const answer = await ask;
  return {
    status: answer.status,
    headers: Object.fromEntries(HEADERS.map((name) => [name, answer.headers[name]])),
    body: answer.text ?? '',
  };
}

describe('direct dispatch of the protocol routes', () => {
  test("a protocol route's request skips the router's walk; any other request walks it", async () => {
    const server = createServer(app, { logger: silentLogger, pageKeys: ['k'] });
    const seenBySpy = spyBeforeRoutes(server);
    const http = request(server);
    expect((await asks.validate!(http)).status).toBe(200);
    expect((await asks['data, first page']!(http)).status).toBe(200);
    expect(seenBySpy).toEqual([]);
    expect((await asks['unknown path']!(http)).status).toBe(404);
    expect((await asks['wrong method']!(http)).status).toBe(405);
    expect(seenBySpy).toEqual(['POST /nope', 'GET /validate']);
  });

  for (const [what, options] of [
    ['no access options', {}],
    ['a shared secret (requests without it)', { access: { sharedSecret: SECRET } }],
  ] as const) {
    test(`every answer is the walk's answer: ${what}`, async () => {
      const { direct, walked } = pair(options);
      for (const [name, ask] of Object.entries(asks)) {
        const mine = await seen(ask(request(direct)));
        const theirs = await seen(ask(request(walked)));
        expect({ name, ...mine }).toEqual({ name, ...theirs });
      }
    });
  }

  test("the request log's lines are the walk's lines", async () => {
    const lines = { direct: [] as unknown[], walked: [] as unknown[] };
    const direct = createServer(app, {
      pageKeys: ['k'],
      logger: jsonLogger((line) => lines.direct.push(line), 'info'),
    });
    const walked = createServer(app, {
      pageKeys: ['k'],
      logger: jsonLogger((line) => lines.walked.push(line), 'info'),
    });
    delete (walked.router as unknown as { handle?: unknown }).handle;
    for (const name of [
      'validate, query string',
      'data, first page',
      'data, failing handler',
      'unknown path',
    ]) {
      await asks[name]!(request(direct));
      await asks[name]!(request(walked));
    }
    // Everything but the time each took.
    const shown = (all: unknown[]) =>
      all.map((line) => {
        const { durationMs, time, ...rest } = JSON.parse(String(line));
        return rest;
      });
    // A request's line is written when its response closes, which may be just after the client has it.
    const requests = (all: unknown[]) => shown(all).filter((line) => line.msg === 'request').length;
    await expect
      .poll(() => [requests(lines.direct), requests(lines.walked)], { timeout: 10_000 })
      .toEqual([4, 4]);
    expect(shown(lines.direct)).toEqual(shown(lines.walked));
  });

  test('every page of a sync, with the shared secret, is the walk answer', async () => {
    const { direct, walked } = pair({ access: { sharedSecret: SECRET } });
    for (const server of [direct, walked]) {
      const ids: string[] = [];
      let pagination: unknown = null;
      for (let page = 0; page < 10; page += 1) {
        const answer = await request(server)
          .post('/api/v1/synchronizer/data')
          .set('x-weft-secret', SECRET)
          .send({ ...firstPage, pagination });
        expect(answer.status).toBe(200);
        expect(answer.headers['x-content-type-options']).toBe('nosniff');
        expect(answer.headers['cache-control']).toBe('no-store');
        ids.push(...answer.body.items.map((item: { id: string }) => item.id));
        if (!answer.body.pagination.hasNext) break;
        pagination = answer.body.pagination.nextPageConfig;
      }
      expect(ids).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5']);
    }
  });
});
