// Child process of `request-stages.ts`: the same one-item data answer served by Express apps
// that each add one more of weft's per-request steps, from Express alone to the whole of weft,
// so the difference between neighbours is what that step costs on a real socket.
import express, { type Request, type RequestHandler, type Response } from 'express';
import { auth, defineApp, field, resume, silentLogger } from '../src/index.js';
import { cutPage } from '../src/paging/cut-page.js';
import { resolvePageKeys } from '../src/paging/page-keys.js';
import { decodePageState, encodePageState } from '../src/paging/page-state.js';
import { dataRequest } from '../src/protocol/index.js';
import { jsonBodies } from '../src/router/body-parsers.js';
import { checkFilter } from '../src/router/boundary.js';
import { handle } from '../src/router/handle.js';
import { compileApp } from '../src/startup/compile-app.js';
import { hand, weft } from './page-apps.js';

const item = (n: number) => ({ id: `issue-${n}`, name: `Issue number ${n}`, points: n % 13 });
const keys = resolvePageKeys(['bench-page-key'], silentLogger);
const pagination = encodePageState('issue', { cursor: 5000, skip: 0 }, keys);
const compiled = compileApp(
  defineApp({
    id: 'stages',
    name: 'Stages',
    version: '1.0.0',
    description: 'Benchmark app',
    website: 'https://example.com',
    authentication: [auth.none()],
    sync: {
      types: { issue: { name: 'Issue', fields: { id: field.id(), name: field.text() }, async *data() {} } },
    },
  }) as never,
);

/** The answer, written as weft's sendPage writes it (no ETag, no res.json). */
function answer(res: Response): void {
  const bytes = Buffer.from(
    JSON.stringify({
      items: [item(5000)],
      pagination: { hasNext: true, nextPageConfig: { offset: 5001 } },
      synchronizationType: 'full',
    }),
  );
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': bytes.length });
  res.end(bytes);
}

async function* oneItem() {
  yield item(5000);
  yield resume(5001);
  yield item(5001);
}

/**
 * weft's middleware in front of the route with the silent logger (which mounts no request log):
 * security headers, body parser with depth check.
 */
function behindWeftMiddleware(route: RequestHandler) {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const router = express.Router({ caseSensitive: true, strict: true });
  router.use((req, res, next) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (req.method !== 'GET') res.setHeader('Cache-Control', 'no-store');
    next();
  });
  router.use(jsonBodies({ limit: '256kb', largeLimit: '10mb', maxDepth: 64 }));
  router.post('/api/v1/synchronizer/data', route);
  app.use(router);
  return app;
}

const plainExpress = express();
plainExpress.disable('x-powered-by');
plainExpress.set('etag', false);
plainExpress.use(express.json());
plainExpress.post('/api/v1/synchronizer/data', (_req, res) => answer(res));

const wrapped = (work: (req: Request) => unknown) =>
  handle(compiled, { logger: silentLogger }, 'data', dataRequest, async (_body, _scope, req, res) => {
    await work(req);
    answer(res);
  });

/** Each stage adds to the one before it. */
export const stages = {
  'hand-written (res.json)': hand,
  'express, direct write': plainExpress,
  '+ weft middleware': behindWeftMiddleware((_req, res) => answer(res)),
  '+ handle() (secrets, scope, time limit, body schema)': behindWeftMiddleware(wrapped(() => undefined)),
  '+ filter check': behindWeftMiddleware(wrapped((req) => checkFilter(compiled, req.body.filter))),
  '+ page state checked and signed': behindWeftMiddleware(
    wrapped((req) => {
      checkFilter(compiled, req.body.filter);
      decodePageState('issue', pagination, keys);
      encodePageState('issue', { cursor: 5001, skip: 0 }, keys);
    }),
  ),
  '+ cutPage of the handler': behindWeftMiddleware(
    wrapped(async (req) => {
      checkFilter(compiled, req.body.filter);
      decodePageState('issue', pagination, keys);
      await cutPage(oneItem(), {
        pageSize: 1,
        state: { cursor: 5000, skip: 0 },
        mode: 'full',
        type: 'issue',
      });
      encodePageState('issue', { cursor: 5001, skip: 0 }, keys);
    }),
  ),
  weft,
};

const ports: Record<string, number> = {};
for (const [name, server] of Object.entries(stages)) {
  ports[name] = await new Promise<number>((resolve) => {
    const listening = server.listen(0, '127.0.0.1', () => {
      const address = listening.address();
      resolve(typeof address === 'object' && address ? address.port : 0);
    });
  });
}
process.stdout.write(`${JSON.stringify(ports)}\n`);
process.on('message', () => process.send?.(process.cpuUsage()));
