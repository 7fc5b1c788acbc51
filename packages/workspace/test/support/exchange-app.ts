// An app whose sync exchanges the tests read back from a run's record: an account with a password
// field not named like a secret (`passcode`: redacted because the app declares it a password),
// notes on two pages (the second without `pagination`, which the reader takes with a warning),
// a type whose data answers 500 with a body that echoes the passcode, and webhook events whose
// transform fails the same way.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

type Json = Record<string, unknown>;

export const PASSCODE = 'pass-s3cret-9876-xyz';

function answer(path: string, body: Json): [number, unknown] {
  const account = (body.account ?? {}) as Json;
  switch (path) {
    case '/validate':
      return (body.fields as Json | undefined)?.passcode === PASSCODE
        ? [200, { name: 'Shop account' }]
        : [401, { message: 'Unknown passcode' }];
    case '/api/v1/synchronizer/config':
      return [
        200,
        {
          types: [
            { id: 'note', name: 'Notes' },
            { id: 'bad', name: 'Bad' },
          ],
          filters: [],
        },
      ];
    case '/api/v1/synchronizer/schema': {
      const type = { id: { type: 'id', name: 'Id' }, name: { type: 'text', name: 'Name' } };
      return [200, { note: type, bad: type }];
    }
    case '/api/v1/synchronizer/data': {
      if (account.passcode !== PASSCODE) return [401, { message: 'Unauthorized' }];
      if (body.requestedType === 'bad')
        return [500, { message: `The shop refused passcode ${PASSCODE}`, detail: 'x'.repeat(5000) }];
      const page = Number((body.pagination as Json | null)?.page ?? 1);
      return page === 1
        ? [
            200,
            {
              items: [
                { id: 'n1', name: 'First' },
                { id: 'n2', name: 'Second' },
              ],
              pagination: { hasNext: true, nextPageConfig: { page: 2 } },
              synchronizationType: 'full',
            },
          ]
        : [200, { items: [{ id: 'n3', name: 'Third' }], synchronizationType: 'full' }];
    }
    // Events: pre-processed for every workspace (the webhook names none), then a transform that
    // fails echoing the account.
    case '/api/v1/synchronizer/webhooks/pre-process':
      return [200, { reply: {}, workspaceIds: [] }];
    case '/api/v1/synchronizer/webhooks/transform':
      return [500, { message: `The shop refused the event for passcode ${account.passcode}` }];
    default:
      return [404, { message: `No route ${path}` }];
  }
}

const DESCRIPTOR = {
  id: 'shop',
  name: 'Shop',
  version: '1.0.0',
  description: 'notes, and a type that fails',
  website: 'http://127.0.0.1/',
  authentication: [
    {
      id: 'passcode',
      name: 'Passcode',
      fields: [{ id: 'passcode', name: 'Passcode', type: 'password', description: 'the passcode' }],
    },
  ],
  sources: [],
  responsibleFor: { dataSynchronization: true },
};

export async function serveExchangeApp(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => {
      text += c.toString('utf8');
    });
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const [status, body] =
        req.method === 'GET' && path === '/' ? [200, DESCRIPTOR] : answer(path, text ? JSON.parse(text) : {});
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
