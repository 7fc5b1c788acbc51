// App calls sent on a worker thread (ExchangeThread) must come back as the very exchange
// sendExchange makes in process, over real HTTP: a JSON answer, an answer that is not JSON, an
// error status, a redirect shown as it is, an answer over the size limit, a time limit, a stop
// from the caller, nothing listening. A call under way when the thread closes ends as a call
// without an answer; a call after that is sent in process. The thread holds no process open.
import { execFile } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AppClient,
  type Exchange,
  type ExchangeRequest,
  ExchangeThread,
  sendExchange,
} from '../src/index.js';
import type { TransportOptions } from '../src/exchange.js';

let server: Server;
let url: string;
/** requests seen by the server that never answer, to end them after the test */
const hanging: ServerResponse[] = [];

const routes: Record<string, (req: IncomingMessage, body: string, res: ServerResponse) => void> = {
  '/page': (_req, body, res) => {
    const asked = body ? (JSON.parse(body) as { pagination: unknown }) : null;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ items: [{ id: 'a', n: 1, asked }], pagination: { hasNext: false } }));
  },
  '/text': (_req, _body, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('not json {');
  },
  '/error': (_req, _body, res) => {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ message: 'upstream down' }));
  },
  '/moved': (_req, _body, res) => {
    res.writeHead(302, { location: '/page' });
    res.end();
  },
  '/large': (_req, _body, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ items: Array.from({ length: 200 }, (_, i) => ({ id: `row ${i}` })) }));
  },
  '/never': (_req, _body, res) => {
    hanging.push(res);
  },
  '/api/v1/synchronizer/data': (_req, body, res) => {
    const { pagination } = JSON.parse(body) as { pagination: { at: number } | null };
    const at = pagination?.at ?? 0;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        items: [{ id: `i${at}`, name: `Item ${at}` }],
        pagination: { hasNext: at < 2, nextPageConfig: { at: at + 1 } },
        synchronizationType: 'full',
      }),
    );
  },
};

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      const route = routes[req.url ?? ''];
      if (route) route(req, body, res);
      else {
        res.writeHead(404);
        res.end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const res of hanging) res.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const transport = (extra: Partial<TransportOptions> = {}): TransportOptions => ({
  timeoutMs: 5000,
  redirect: 'follow',
  reconnect: true,
  keepJsonText: false,
  ...extra,
});

/** An exchange without what differs between any two sends: its duration and the answer's date. */
function comparable(exchange: Exchange): Omit<Exchange, 'ms'> {
  const { ms: _ms, ...rest } = exchange;
  if (rest.headers) {
    const { date: _date, ...headers } = rest.headers;
    rest.headers = headers;
  }
  return rest;
}

describe('ExchangeThread', () => {
  const thread = new ExchangeThread();
  afterAll(() => thread.close());

  const post = (path: string, body: unknown = { pagination: null }): ExchangeRequest => ({
    method: 'POST',
    path,
    body,
  });

  it.each([
    ['a JSON answer', post('/page', { pagination: { at: 2 } }), transport()],
    ['a JSON answer, its text kept', post('/page'), transport({ keepJsonText: true })],
    ['an answer that is not JSON', post('/text'), transport()],
    ['an error status', post('/error'), transport()],
    ['a redirect shown as it is', post('/moved'), transport({ redirect: 'manual' })],
    ['a redirect followed', post('/moved'), transport()],
    ['an answer over the size limit', post('/large'), transport({ maxBytes: 100 })],
    ['no answer within the time limit', post('/never'), transport({ timeoutMs: 200 })],
  ])('gives the exchange sendExchange gives: %s', async (_what, request, options) => {
    const inProcess = await sendExchange(url, request, undefined, options);
    const onThread = await thread.send(url, request, undefined, options);
    expect(comparable(onThread)).toEqual(comparable(inProcess));
    expect(onThread.ms).toBeGreaterThan(0);
  });

  it('gives the same for nothing listening, and for a raw body sent verbatim', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const nowhere = `http://127.0.0.1:${port}`;
    const inProcess = await sendExchange(nowhere, post('/page'), undefined, transport());
    const onThread = await thread.send(nowhere, post('/page'), undefined, transport());
    expect(onThread.unreachable).toBe('ECONNREFUSED');
    expect(comparable(onThread)).toEqual(comparable(inProcess));

    const raw = '{"pagination": null}';
    const rawInProcess = await sendExchange(url, post('/page', 'ignored'), raw, transport());
    const rawOnThread = await thread.send(url, post('/page', 'ignored'), raw, transport());
    expect(rawOnThread.requestBody).toBe(raw);
    expect(comparable(rawOnThread)).toEqual(comparable(rawInProcess));
  });

  it("stops a call when the caller's signal aborts, as sendExchange does", async () => {
    const stopped = async (send: typeof sendExchange) => {
      const stop = new AbortController();
      setTimeout(() => stop.abort(), 100);
      const started = performance.now();
      const exchange = await send(url, post('/never'), undefined, transport({ signal: stop.signal }));
      return { exchange, took: performance.now() - started };
    };
    const inProcess = await stopped(sendExchange);
    const onThread = await stopped(thread.send);
    expect(onThread.exchange.failureCode).toBeDefined();
    expect(comparable(onThread.exchange)).toEqual(comparable(inProcess.exchange));
    expect(onThread.took).toBeLessThan(3000);

    // A signal already aborted: the call ends at once.
    const early = new AbortController();
    early.abort();
    const before = await sendExchange(url, post('/never'), undefined, transport({ signal: early.signal }));
    const after = await thread.send(url, post('/never'), undefined, transport({ signal: early.signal }));
    expect(comparable(after)).toEqual(comparable(before));
  });

  it("carries an AppClient's calls: its data pages read as in process", async () => {
    const request = {
      requestedType: 'item',
      types: ['item'],
      filter: {},
      account: {},
      lastSynchronizedAt: null,
    };
    const seen: Exchange[] = [];
    const onThread = new AppClient(url, { exchanger: thread.send, onExchange: (e) => seen.push(e) });
    const inProcess = new AppClient(url);
    for (const pagination of [null, { at: 1 }, { at: 2 }]) {
      const a = await onThread.dataPage({ ...request, pagination });
      const b = await inProcess.dataPage({ ...request, pagination });
      expect(a.kind).toBe('page');
      if (a.kind !== 'page' || b.kind !== 'page') continue;
      expect(a.page).toEqual(b.page);
      expect(comparable(a.exchange)).toEqual(comparable(b.exchange));
    }
    expect(seen.map((e) => e.status)).toEqual([200, 200, 200]);
  });

  it('ends a call under way when it closes, and sends later calls in process', async () => {
    const own = new ExchangeThread();
    const under = own.send(url, post('/never'), '{"x":1}', transport());
    // Once the thread has the call (it answers a first call first).
    await own.send(url, post('/page'), undefined, transport());
    await own.close();
    const ended = await under;
    expect(ended).toMatchObject({
      method: 'POST',
      path: '/never',
      isJson: false,
      failureCode: 'thread-stopped',
      requestBody: '{"x":1}',
    });
    expect(ended.status).toBeUndefined();
    const later = await own.send(url, post('/page'), undefined, transport());
    expect(later.status).toBe(200);
  });

  it('sends in process when its thread cannot start, that call and every later one', async () => {
    const cannot = [
      () => new Worker('throw new Error("cannot load")', { eval: true }),
      () => {
        throw new Error('no thread here');
      },
    ];
    for (const make of cannot) {
      let made = 0;
      const own = new ExchangeThread(() => {
        made += 1;
        return make();
      });
      const first = await own.send(url, post('/page'), undefined, transport());
      const second = await own.send(url, post('/page'), undefined, transport());
      expect([first.status, second.status]).toEqual([200, 200]);
      expect(made).toBe(1);
      await own.close();
    }
  });

  it('holds no process open: a script that made a call ends on its own', async () => {
    const module = fileURLToPath(new URL('../src/exchange-thread.ts', import.meta.url));
    const script = `
      const { ExchangeThread } = await import(${JSON.stringify(module)});
      const thread = new ExchangeThread();
      const e = await thread.send(${JSON.stringify(url)}, { method: 'POST', path: '/page', body: { pagination: null } }, undefined,
        { timeoutMs: 5000, redirect: 'follow', reconnect: true });
      console.log(e.status ?? JSON.stringify(e));`;
    // Not spawnSync: this process serves the call.
    const child = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const run = execFile(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', script],
        { encoding: 'utf8', timeout: 20_000 },
        (_error, stdout, stderr) => resolve({ code: run.exitCode, stdout, stderr }),
      );
    });
    expect(child.stderr).toBe('');
    expect(child.stdout.trim()).toBe('200');
    expect(child.code).toBe(0);
  }, 30_000);
});
