// The benchmark's two apps: the same data page through weft and as a hand-written Express app
// returning the same JSON. `servers.ts` serves both from one child process.
import express from 'express';
import { auth, createServer, defineApp, field, resume, silentLogger } from '../src/index.js';

const PAGE = Number(process.env.BENCH_PAGE ?? 1_000);

function makeItem(n: number) {
  return {
    id: `issue-${n}`,
    name: `Issue number ${n}`,
    points: n % 13,
    state: n % 3 === 0 ? 'Done' : 'Open',
    project: `p${n % 7}`,
  };
}

function upstreamPage(start: number) {
  const items = [];
  for (let n = start; n < start + PAGE; n += 1) items.push(makeItem(n));
  return items;
}

const fields = {
  id: field.id(),
  name: field.text(),
  points: field.integer(),
  state: field.text(),
  project: field.text(),
};

const app = defineApp({
  id: 'bench',
  name: 'Bench',
  version: '1.0.0',
  description: 'Benchmark app',
  website: 'https://example.com',
  authentication: [auth.none()],
  pageSize: PAGE,
  sync: {
    types: {
      issue: {
        name: 'Issue',
        fields,
        // The idiomatic handler for a paged upstream: yield each upstream page as a batch.
        async *data({ cursor }) {
          const start = typeof cursor === 'number' ? cursor : 0;
          yield upstreamPage(start);
          yield resume(start + PAGE);
          yield upstreamPage(start + PAGE);
        },
      },
      issueStream: {
        name: 'Issue (one yield per item)',
        fields,
        async *data({ cursor }) {
          const start = typeof cursor === 'number' ? cursor : 0;
          for (let n = start; n < start + PAGE; n += 1) yield makeItem(n);
          yield resume(start + PAGE);
          yield makeItem(start + PAGE);
        },
      },
    },
  },
});

export const weft = createServer(app, { logger: silentLogger, pageKeys: ['bench-page-key'] });

// What a careful developer would write by hand for the same two answers.
export const hand = express();
hand.use(express.json());
const descriptor = {
  id: 'bench',
  name: 'Bench',
  website: 'https://example.com',
  version: '1.0.0',
  description: 'Benchmark app',
  authentication: [{ id: 'none', name: 'Public access' }],
  sources: [],
  responsibleFor: { dataSynchronization: true, automations: false },
};
hand.get('/', (_req, res) => {
  res.json(descriptor);
});
hand.post('/validate', (_req, res) => {
  res.json({ name: 'Public access' });
});
/** The weft per-item handler's generator as a hand-written app would write it, ended by a resume offset. */
async function* issuesOneByOne(start: number) {
  for (let n = start; n < start + PAGE; n += 1) yield makeItem(n);
  yield { offset: start + PAGE };
  yield makeItem(start + PAGE);
}
hand.post('/api/v1/synchronizer/data', async (req, res) => {
  if (req.body?.requestedType === 'issueStream') {
    // The same one-yield-per-item generator, drained by a careful hand-written loop: what the
    // per-item page costs without weft, so the yield protocol's share can be told apart.
    const start = typeof req.body.pagination?.offset === 'number' ? req.body.pagination.offset : 0;
    const items: unknown[] = [];
    let next = start;
    for await (const item of issuesOneByOne(start)) {
      if ('offset' in item) {
        next = item.offset;
        if (items.length === PAGE) break;
      } else if (items.length === PAGE) break;
      else items.push(item);
    }
    res.json({
      items,
      pagination: { hasNext: true, nextPageConfig: { offset: next } },
      synchronizationType: 'full',
    });
    return;
  }
  if (req.body?.requestedType !== 'issue') {
    res.status(404).json({ message: 'Unknown type' });
    return;
  }
  const start = typeof req.body.pagination?.offset === 'number' ? req.body.pagination.offset : 0;
  const items = upstreamPage(start);
  res.json({
    items,
    pagination: { hasNext: true, nextPageConfig: { offset: start + PAGE } },
    synchronizationType: 'full',
  });
});
