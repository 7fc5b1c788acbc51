// Keeps the app examples in the docs true. Every ```ts block whose first line is
// `// example: <name>` is a whole app exporting `app`: it is written to docs/.examples/ (inside
// the repo, so its imports resolve), started, and judged by the conformance kit, with a local
// stand-in for its upstream API. docs/first-app.md has its own test.
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ConformanceOptions, runConformance } from '@weft/conformance';
import { testApp } from '@weft/core/testing';
import { afterAll, describe, expect, test } from 'vitest';

const DOCS = dirname(fileURLToPath(import.meta.url));
const OUT = join(DOCS, '.examples');
const MARKER = /^\/\/ example: ([a-z0-9-]+)\s*$/;

interface Example {
  name: string;
  file: string;
  code: string;
}

/** Every marked example of every doc page except first-app.md. */
function examples(): Example[] {
  const found: Example[] = [];
  for (const file of readdirSync(DOCS).filter((f) => f.endsWith('.md') && f !== 'first-app.md')) {
    const text = readFileSync(join(DOCS, file), 'utf8');
    for (const block of text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)) {
      const code = block[1]!;
      const name = MARKER.exec(code.split('\n', 1)[0]!)?.[1];
      if (name) found.push({ name, file, code });
    }
  }
  return found;
}

type Route = (req: IncomingMessage, body: string) => { status: number; json?: unknown };

/** A stand-in for an example's upstream API on 127.0.0.1: real HTTP, answers by route. */
async function upstream(route: Route): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const answer = route(req, body);
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(answer.json === undefined ? '' : JSON.stringify(answer.json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const bearer = (req: IncomingMessage, token: string) => req.headers.authorization === `Bearer ${token}`;

/** How to run each example: its upstream, the env variable naming it, and the kit's options. */
const FIXTURES: Record<string, { env: string; route: Route; options: ConformanceOptions }> = {
  tickets: {
    env: 'TICKETS_API_URL',
    route: (req) => {
      if (!bearer(req, 'good-token')) return { status: 401, json: { error: 'bad token' } };
      if (req.url === '/me') return { status: 200, json: { name: 'Help desk' } };
      if (req.method === 'POST' && req.url === '/tickets') return { status: 201, json: { id: 't-1' } };
      return { status: 404, json: { error: 'no such route' } };
    },
    options: {
      account: { token: 'good-token' },
      actions: [
        { action: 'create-ticket', args: { title: 'Printer', body: 'It is on fire' } },
        { action: 'create-ticket', args: { title: 'Old', body: 'x', queue: 'archive' }, expect: 'failure' },
      ],
    },
  },
  'tracker-webhooks': {
    env: 'TRACKER_API_URL',
    route: (req) => {
      if (!bearer(req, 'good-token')) return { status: 401, json: { error: 'bad token' } };
      if (req.url === '/me') return { status: 200, json: { name: 'Ada', accountId: 'acc-1' } };
      if (req.url?.startsWith('/tasks'))
        return { status: 200, json: { tasks: [{ id: 'k1', title: 'Write docs' }], next: null } };
      return { status: 404, json: { error: 'no such route' } };
    },
    options: { account: { token: 'good-token' } },
  },
  'database-tables': {
    env: 'DATABASE_API_URL',
    route: (req) => {
      if (!bearer(req, 'good-key')) return { status: 401, json: { error: 'bad key' } };
      if (req.url === '/tables')
        return {
          status: 200,
          json: [
            { name: 'orders', columns: [{ name: 'total', type: 'number' }] },
            { name: 'customers', columns: [{ name: 'email', type: 'text' }] },
          ],
        };
      if (req.url?.startsWith('/tables/orders/rows'))
        return { status: 200, json: [{ id: 1, label: 'Order 1', total: 9.5 }] };
      if (req.url?.startsWith('/tables/customers/rows'))
        return { status: 200, json: [{ id: 7, label: 'Ada', email: 'ada@example.com' }] };
      return { status: 404, json: { error: 'no such route' } };
    },
    options: { account: { apiKey: 'good-key' } },
  },
};

afterAll(() => rmSync(OUT, { recursive: true, force: true }));

describe('app examples in the docs pass the conformance kit as written', () => {
  const all = examples();

  test('every marked example has a fixture and every fixture an example', () => {
    expect(all.map((e) => e.name).sort()).toEqual(Object.keys(FIXTURES).sort());
  });

  for (const example of all) {
    test(`${example.file}: ${example.name}`, async () => {
      const fixture = FIXTURES[example.name];
      if (!fixture) throw new Error(`no fixture for example "${example.name}" of ${example.file}`);
      mkdirSync(OUT, { recursive: true });
      const path = join(OUT, `${example.name}.ts`);
      writeFileSync(path, example.code);
      const api = await upstream(fixture.route);
      process.env[fixture.env] = api.url;
      const mod = (await import(path)) as { app: Parameters<typeof testApp>[0] };
      const running = await testApp(mod.app);
      try {
        const report = await runConformance(running.url, { timeoutMs: 5_000, ...fixture.options });
        const failed = report.checks
          .filter((c) => c.status === 'fail')
          .map((c) => `${c.id}: ${c.reason ?? ''}`);
        expect(failed).toEqual([]);
      } finally {
        await running.close();
        await api.close();
        delete process.env[fixture.env];
      }
    });
  }
});
