// What an app in production reads from each data request, and answers as a Go app's JSON encoder
// writes it, over real HTTP. Apps written against the service refuse a data request without its
// `operationId` or without `schema[requestedType]` (they read their own field definitions back
// from it), and answer a type's first page only once every type of the sync has asked for its
// own (they fetch all types upstream in one go): the service asks for them all at once. The app
// here does the same, with more types than the workspace reads at a time, and answers with what
// Go's encoder writes for empty values: `null` for a list it never filled (its actions, a type's
// rows), `{}` for its webhooks settings (an empty struct), `""` for a relation it has no target
// for; and it routes as Go's ServeMux does, answering 405 to a POST for an endpoint it does not
// have (filter/validate).
// Runs on PGlite, and on Postgres when WEFT_TEST_DATABASE_URL is set.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FirstPagesGate } from '../../../../scripts/test-support/first-pages-gate.js';
import { listenRawApp } from '../../../../scripts/test-support/raw-app.js';
import { databaseTargets } from '../../test/support/databases.js';
import { startHostedOn } from './fixtures/hosted-on.js';
import type { HostedWorkspace } from './start-hosted-workspace.js';

type Json = Record<string, unknown>;

const schema: Record<string, Record<string, Json>> = {
  customer: {
    id: { name: 'Id', type: 'id' },
    name: { name: 'Name', type: 'text', subType: 'title' },
    balance: {
      name: 'Balance',
      type: 'number',
      format: { format: 'Money', currencyCode: 'USD', hasThousandSeperator: true, precision: 2 },
    },
    termId: {
      name: 'Term ID',
      type: 'text',
      relation: {
        cardinality: 'many-to-one',
        name: 'Term',
        targetName: 'Customers',
        targetType: 'term',
        targetFieldId: 'id',
      },
    },
    __syncAction: { name: 'Sync Action', type: 'text' },
  },
  term: { id: { name: 'Id', type: 'id' }, name: { name: 'Name', type: 'text' } },
  class: { id: { name: 'Id', type: 'id' }, name: { name: 'Name', type: 'text' } },
  vendor: { id: { name: 'Id', type: 'id' }, name: { name: 'Name', type: 'text' } },
  item: { id: { name: 'Id', type: 'id' }, name: { name: 'Name', type: 'text' } },
  account: { id: { name: 'Id', type: 'id' }, name: { name: 'Name', type: 'text' } },
};
const TYPES = Object.keys(schema).sort();

const items: Record<string, Json[] | null> = {
  customer: [
    { id: 'c1', name: 'Acme', balance: 12.5, termId: 't1', __syncAction: 'SET' },
    { id: 'c2', name: 'Globex', balance: 0, termId: '', __syncAction: 'SET' },
  ],
  term: [{ id: 't1', name: 'Net 30' }],
  // A type without rows, whose list Go never filled.
  class: null,
};

const answers: Record<string, Json> = {
  '/': {
    id: 'go-style',
    name: 'Go style',
    version: '1.0.0',
    description: 'answers as a Go app encodes them',
    authentication: [
      {
        id: 'token',
        name: 'Token',
        fields: [{ id: 'key', title: 'Key', type: 'password', description: '' }],
      },
    ],
    sources: [],
    responsibleFor: { dataSynchronization: true },
    actions: null,
  },
  '/validate': { name: 'Go account' },
  '/api/v1/synchronizer/config': {
    types: Object.keys(schema).map((id) => ({ id, name: id })),
    filters: [],
    webhooks: {},
  },
  '/api/v1/synchronizer/schema': schema,
};

/** Every data request the app received, as sent. */
const dataRequests: Json[] = [];

/** Answers a first page once every type of the sync asked for its own. */
const gate = new FirstPagesGate(10_000);

async function data(body: Json): Promise<{ status: number; answer: Json }> {
  dataRequests.push(body);
  const type = String(body.requestedType);
  if (!body.operationId) return { status: 400, answer: { message: 'operationId is required' } };
  const sent = (body.schema as Record<string, Json> | undefined)?.[type];
  if (!sent) return { status: 400, answer: { message: `no schema for ${type} was provided on the request` } };
  if (body.pagination == null && !(await gate.pass(body)))
    return {
      status: 500,
      answer: { message: `${type}: not every type of the sync asked for its first page` },
    };
  return {
    status: 200,
    answer: {
      items: type in items ? items[type] : [],
      pagination: { hasNext: false, nextPageConfig: { startPosition: 0 } },
      synchronizationType: 'full',
    },
  };
}

let app: Awaited<ReturnType<typeof listenRawApp>>;
let appUrl: string;
beforeAll(async () => {
  app = await listenRawApp(async ({ method, path, text }) => {
    // As Go's ServeMux routes with a `GET /` pattern for the descriptor: every other GET gets
    // the descriptor too, and a POST to a path without a route (filter/validate here) a 405.
    const route = method === 'GET' ? '/' : path;
    if (route === '/api/v1/synchronizer/data') {
      const { status, answer } = await data(JSON.parse(text) as Json);
      return { status, body: answer };
    }
    if (answers[route]) return { status: 200, body: answers[route] };
    return {
      status: 405,
      body: 'Method Not Allowed\n',
      headers: { 'content-type': 'text/plain; charset=utf-8', allow: 'GET, HEAD' },
    };
  });
  appUrl = app.url;
});
afterAll(() => app.close());

for (const target of databaseTargets()) {
  describe(`an app that reads the schema back from each data request [${target.name}]`, () => {
    let ws: HostedWorkspace;
    let stopWorkspace: () => Promise<void> = async () => {};
    beforeAll(async () => {
      ({ ws, close: stopWorkspace } = await startHostedOn(target, 'data-request', {
        jobs: { pollSeconds: 0.5 },
        // Fewer page jobs at a time than the app has types.
        hostOptions: { concurrency: 4 },
      }));
    });
    afterAll(async () => {
      await stopWorkspace();
    });

    it('asks every first page at once, with the sync schema and operation, and its answers sync', async () => {
      dataRequests.length = 0;
      const source = await ws.apps.addSource({ url: appUrl, fields: { key: 'k' } });
      const run = await ws.apps.sync(source.id, { wait: true });
      expect(run, run.error ?? '').toMatchObject({ status: 'succeeded', rowsSet: 3 });
      // The type whose rows came as `null` has none, and the run says how it read them.
      expect(run.error).toContain('class: data.items: null: read as no rows');

      // One request per type (each first page answered once every type had asked for its own).
      expect(dataRequests.map((b) => b.requestedType).sort()).toEqual(TYPES);
      for (const body of dataRequests) {
        expect(body.operationId).toBe(run.id);
        // The schema of every type of the sync, as the app declared it.
        const sent = body.schema as Record<string, Record<string, Json>>;
        expect(Object.keys(sent).sort()).toEqual(TYPES);
        expect(sent.customer?.termId).toMatchObject(schema.customer?.termId as Json);
        expect(sent.customer?.balance).toMatchObject({ name: 'Balance', type: 'number' });
        expect(sent.term).toEqual(schema.term);
      }

      const [result] = await ws.execute([
        {
          command: 'svc.entity/query',
          args: {
            query: {
              'q/from': `${source.namespace}/customer`,
              'q/select': {
                name: `${source.namespace}/name`,
                term: [`${source.namespace}/termid`, `${source.namespace}/name`],
              },
              'q/order-by': [[[`${source.namespace}/name`], 'q/asc']],
              'q/limit': 10,
            },
          },
        },
      ]);
      // An empty relation value is no relation.
      expect((result as { result: unknown }).result, JSON.stringify(result)).toEqual([
        { name: 'Acme', term: 'Net 30' },
        { name: 'Globex', term: null },
      ]);
    }, 60_000);
  });
}
