// Child process of the load benchmark: serves the bookshelf sample app through weft
// (`weft`), or the same two answers from a hand-written Express app (`hand`), on its own, so
// its RSS is its own. Reports its RSS or its CPU time on request over IPC.
import { createServer as createHttpServer } from 'node:http';
import express from 'express';
import { createBookshelfApp, toItem } from '../../../apps/bookshelf/src/app.js';
import { embeddedCatalog } from '../../../apps/bookshelf/src/catalog.js';
import { createServer, hardenServer, silentLogger } from '../src/index.js';

const kind = process.argv[2];
const PAGE = 500;
const UPSTREAM_PAGE = 100;

function handWritten() {
  const catalog = embeddedCatalog();
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(express.json({ limit: '256kb' }));
  app.post('/validate', (_req, res) => {
    res.json({ name: 'Public library' });
  });
  app.post('/api/v1/synchronizer/data', async (req, res) => {
    if (req.body?.requestedType !== 'book') {
      res.status(404).json({ message: 'Unknown type' });
      return;
    }
    const start = typeof req.body.pagination?.offset === 'number' ? req.body.pagination.offset : 0;
    const items = [];
    let offset: number | null = start;
    while (offset !== null && items.length < PAGE) {
      const page = await catalog.listBooks({ offset, limit: UPSTREAM_PAGE });
      for (const book of page.items) items.push(toItem(book));
      offset = page.nextOffset;
    }
    res.json({
      items,
      pagination: offset === null ? { hasNext: false } : { hasNext: true, nextPageConfig: { offset } },
      synchronizationType: 'full',
    });
  });
  return app;
}

const app =
  kind === 'weft'
    ? createServer(createBookshelfApp(), { logger: silentLogger, pageKeys: ['bench-page-key'] })
    : handWritten();
const server = hardenServer(createHttpServer(app), { maxConnections: 10_000 });
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
});
process.on('message', (what) =>
  process.send?.(what === 'cpu' ? process.cpuUsage() : { rss: process.memoryUsage().rss }),
);
