// The kit asks for the first page of every type of a sync at once, as the service does. Apps
// written for the service rely on it: some fetch all types upstream in one go per `operationId`
// and answer a type's first page only once every type of the sync has asked for its own (a
// QuickBooks app does). The app here does so, with more types than the kit used to read at a time,
// and refuses a data request without `operationId` or `schema[requestedType]`, as such apps do.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FirstPagesGate } from '../../../scripts/test-support/first-pages-gate.js';
import { listenRawApp } from '../../../scripts/test-support/raw-app.js';
import { runConformance } from '../src/index.js';

type Json = Record<string, unknown>;

const TYPES = ['account', 'bill', 'customer', 'invoice', 'item', 'vendor'];
const schema = Object.fromEntries(
  TYPES.map((t) => [
    t,
    {
      id: { name: 'Id', type: 'id' },
      name: { name: 'Name', type: 'text' },
      __syncAction: { name: 'Sync Action', type: 'text' },
    },
  ]),
);

/** Answers a first page once every type of the sync asked for its own. */
const gate = new FirstPagesGate(2_500);

async function answer(path: string, body: Json): Promise<[number, unknown]> {
  switch (path) {
    case '/':
      return [
        200,
        {
          id: 'together',
          name: 'Together',
          version: '1.0.0',
          description: 'answers first pages once every type asked',
          authentication: [
            { id: 'token', name: 'Token', fields: [{ id: 'key', title: 'Key', type: 'password' }] },
          ],
          sources: [],
          responsibleFor: { dataSynchronization: true },
        },
      ];
    case '/validate':
      return (body.fields as Json | undefined)?.key === 'k'
        ? [200, { name: 'Together account' }]
        : [401, { message: 'Invalid key' }];
    case '/api/v1/synchronizer/config':
      return [200, { types: TYPES.map((id) => ({ id, name: id })), filters: [] }];
    case '/api/v1/synchronizer/schema':
      return [200, Object.fromEntries(((body.types as string[]) ?? []).map((t) => [t, schema[t]]))];
    case '/api/v1/synchronizer/data': {
      const type = String(body.requestedType);
      if (!TYPES.includes(type)) return [404, { message: `Unknown type ${type}` }];
      if ((body.account as Json | undefined)?.key !== 'k') return [401, { message: 'Invalid key' }];
      if (!body.operationId) return [400, { message: 'operationId is required' }];
      if (!(body.schema as Json | undefined)?.[type])
        return [400, { message: `no schema for ${type} was provided on the request` }];
      if (!(await gate.pass(body)))
        return [500, { message: `${type}: not every type of the sync asked for its first page` }];
      const row = { id: `${type}-1`, name: `${type} one` };
      const items = body.lastSynchronizedAt ? [{ ...row, __syncAction: 'SET' }] : [row];
      return [
        200,
        {
          items,
          pagination: { hasNext: false, nextPageConfig: null },
          synchronizationType: body.lastSynchronizedAt ? 'delta' : 'full',
        },
      ];
    }
    default:
      return [404, { message: 'Not found' }];
  }
}

let app: Awaited<ReturnType<typeof listenRawApp>>;
let url = '';
beforeAll(async () => {
  app = await listenRawApp(async ({ path, text }) => {
    let body: Json;
    try {
      body = text ? (JSON.parse(text) as Json) : {};
    } catch {
      return { status: 400, body: { message: 'Malformed JSON body' } };
    }
    const [status, out] = await answer(path, body);
    return { status, body: out };
  });
  url = app.url;
});
afterAll(() => app.close());

describe('an app that answers first pages once every type of the sync asked', () => {
  it('syncs every type, full and delta, and the requests without optional keys', async () => {
    const report = await runConformance(url, { account: { key: 'k' }, timeoutMs: 5_000 });
    for (const t of TYPES) {
      expect(report.sync[t], t).toMatchObject({ count: 1, pages: 1, synchronizationType: 'full' });
      expect(report.sync[t]?.delta, t).toMatchObject({ count: 1, set: 1, synchronizationType: 'delta' });
    }
    const data = report.checks.filter((c) => c.id.startsWith('data.'));
    expect(data.filter((c) => c.status === 'fail').map((c) => `${c.id} ${c.title}: ${c.reason}`)).toEqual([]);
    expect(data.filter((c) => c.id === 'data.absent-keys').map((c) => c.status)).toEqual(
      TYPES.map(() => 'pass'),
    );
  }, 60_000);
});
