// What a judge needs of the engine, over real HTTP: every raw exchange seen (the observer, or a
// subclass that answers in place of the app), single pages classified as page, tryLater or
// error, a paging loop that ends with an event instead of a throw, and the protocol requests in
// one place. A core app plays the app; a bare local server plays the misbehaving ones.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type TestApp, testApp } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AppClient,
  appRequests,
  type Exchange,
  type ExchangeRequest,
  itemAction,
  type PagesEvent,
  readPage,
  readPages,
  readType,
  type SendOptions,
  splitItems,
} from '../src/index.js';
import { app, upstream } from './notes-app.js';

/** A bare app for answers a core app never gives: each test sets `answer`. */
let answer: (req: IncomingMessage, body: string, res: ServerResponse) => void = (_req, _body, res) =>
  res.end();
const received: { path: string; body: string }[] = [];
let bare: Server;
let bareUrl: string;

let running: TestApp;
const account = { token: 'secret-token-123' };
const base = { type: 'note', types: ['note'], filter: {}, account, lastSynchronizedAt: null };

beforeAll(async () => {
  running = await testApp(app);
  bare = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      received.push({ path: req.url ?? '', body });
      answer(req, body, res);
    });
  });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await running.close();
  bare.closeAllConnections();
  await new Promise((resolve) => bare.close(resolve));
});

const json = (res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(value));
};

describe('AppClient.send and the exchange observer', () => {
  it('records the raw exchange: status, headers, body text, parsed JSON, duration', async () => {
    const seen: Exchange[] = [];
    const client = new AppClient(running.url, { onExchange: (ex) => seen.push(ex) });
    const ex = await client.send(appRequests.config(account));
    expect(ex).toMatchObject({
      method: 'POST',
      path: '/api/v1/synchronizer/config',
      status: 200,
      isJson: true,
    });
    expect(ex.headers?.['content-type']).toMatch(/json/);
    expect(JSON.parse(ex.text ?? '')).toEqual(ex.json);
    expect(JSON.parse(ex.requestBody ?? '')).toEqual({ account });
    expect(ex.ms).toBeGreaterThan(0);
    // The parsing methods go through the same path: the observer sees their exchanges too.
    await client.descriptor();
    expect(seen.map((e) => e.path)).toEqual(['/api/v1/synchronizer/config', '/']);
  });

  it('with keepJsonText: false keeps only the parsed JSON, and the text of answers that are not JSON', async () => {
    const client = new AppClient(running.url, { keepJsonText: false });
    const ex = await client.send(appRequests.config(account));
    expect(ex).toMatchObject({ status: 200, isJson: true });
    expect(ex.json).toBeTypeOf('object');
    expect(ex.text).toBeUndefined();
    answer = (_req, _body, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('it broke');
    };
    const plain = await new AppClient(bareUrl, { keepJsonText: false }).send(appRequests.descriptor());
    expect(plain).toMatchObject({ status: 500, isJson: false, text: 'it broke' });
  });

  it('never throws: a hang is a failure with its time limit, a closed port is unreachable', async () => {
    answer = () => {}; // never answers
    const client = new AppClient(bareUrl, { timeoutMs: 150 });
    const hang = await client.send(appRequests.descriptor());
    expect(hang).toMatchObject({ failure: 'no answer within 150 ms', failureCode: 'timeout', isJson: false });
    expect(hang.status).toBeUndefined();
    // The parsing methods turn the same exchange into an AppCallError, as before.
    await expect(client.descriptor()).rejects.toMatchObject({ status: 0, retryable: true });

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const gone = await new AppClient(`http://127.0.0.1:${port}`).send(appRequests.descriptor());
    expect(gone.unreachable).toBe('ECONNREFUSED');
    expect(gone.failure).toMatch(/ECONNREFUSED/);
    // So is an https app there (its transport is loaded on first use).
    const secure = await new AppClient(`https://127.0.0.1:${port}`).send(appRequests.descriptor());
    expect(secure.unreachable).toBe('ECONNREFUSED');
  });

  it('sends a raw body verbatim and shows a redirect as it is with `redirect: manual`', async () => {
    answer = (req, _body, res) => {
      if (req.url === '/moved') return json(res, 200, { name: 'moved here' });
      res.writeHead(302, { location: '/moved' });
      res.end();
    };
    const manual = new AppClient(bareUrl, { redirect: 'manual' });
    const raw = await manual.send({ method: 'POST', path: '/x' }, { rawBody: '{"broken":' });
    expect(raw).toMatchObject({ status: 302, location: '/moved', requestBody: '{"broken":' });
    expect(received.at(-1)?.body).toBe('{"broken":');
    const follow = await new AppClient(bareUrl).send({ method: 'GET', path: '/x' });
    expect(follow).toMatchObject({ status: 200, json: { name: 'moved here' } });
  });

  it('follows redirects as fetch does: 303 and a POST moved by 302 become a GET, 307 keeps the POST and its body', async () => {
    const seen: string[] = [];
    answer = (req, body, res) => {
      seen.push(`${req.method} ${req.url} ${body}`);
      if (req.url === '/see-other') return res.writeHead(303, { location: '/there' }).end();
      if (req.url === '/found') return res.writeHead(302, { location: `${bareUrl}/there` }).end();
      if (req.url === '/temporary') return res.writeHead(307, { location: '/there' }).end();
      if (req.url === '/loop') return res.writeHead(302, { location: '/loop' }).end();
      json(res, 200, { method: req.method, body });
    };
    const client = new AppClient(bareUrl);
    for (const [path, method, body] of [
      ['/see-other', 'GET', ''],
      ['/found', 'GET', ''],
      ['/temporary', 'POST', '{"a":1}'],
    ]) {
      seen.length = 0;
      const ex = await client.send({ method: 'POST', path: path as string, body: { a: 1 } });
      expect(ex).toMatchObject({ status: 200, json: { method, body } });
      expect(seen).toEqual([`POST ${path} {"a":1}`, `${method} /there ${body}`]);
    }
    // A redirect that never ends is a failure, not a hang.
    const loop = await client.send({ method: 'GET', path: '/loop' });
    expect(loop.status).toBeUndefined();
    expect(loop.failure).toMatch(/redirect count exceeded/);
  });

  it('reads a body cut off midway as a failure, and a body past the limit as too large', async () => {
    answer = (req, _body, res) => {
      if (req.url === '/big') return json(res, 200, { text: 'x'.repeat(5000) });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"items": [');
      setTimeout(() => res.destroy(), 20);
    };
    const client = new AppClient(bareUrl, { reconnect: false });
    const cut = await client.send({ method: 'GET', path: '/cut' });
    expect(cut.status).toBe(200);
    expect(cut.isJson).toBe(false);
    expect(cut.failure).toBeDefined();
    expect(cut.failureCode).toBe('ECONNRESET');
    const big = await client.send({ method: 'GET', path: '/big' }, { maxBytes: 1000 });
    expect(big).toMatchObject({ status: 200, tooLarge: 1000, isJson: false });
    // The connection it was dropped on is not used again: the next answer is whole.
    answer = (_req, _body, res) => json(res, 200, { ok: true });
    expect(await client.send({ method: 'GET', path: '/after' })).toMatchObject({
      status: 200,
      json: { ok: true },
    });
  });

  it('asks again on a new connection when the kept-alive one was closed under it', async () => {
    let first = true;
    answer = (req, _body, res) => {
      // The first request after the app restarted lands on a connection it no longer serves.
      if (req.url === '/stale' && first) {
        first = false;
        return req.socket.destroy();
      }
      json(res, 200, { ok: true });
    };
    const ex = await new AppClient(bareUrl).send({ method: 'GET', path: '/stale' });
    expect(ex).toMatchObject({ status: 200, json: { ok: true } });
    expect(first).toBe(false);
  });

  it('reads answers over node:http: fetch (undici) is never loaded for them', async () => {
    const script = `
      import { AppClient, appRequests } from ${JSON.stringify(new URL('../src/index.ts', import.meta.url).href)};
      const ex = await new AppClient(process.argv[1]).send(appRequests.config({}));
      const undici = process.moduleLoadList.some((m) => m.includes('internal/deps/undici'));
      console.log(JSON.stringify({ status: ex.status, undici }));`;
    const { execFile } = await import('node:child_process');
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', script, running.url],
        (error, stdout, stderr) => (error ? reject(new Error(stderr)) : resolve(stdout)),
      ),
    );
    expect(JSON.parse(out.trim().split('\n').at(-1) as string)).toEqual({ status: 200, undici: false });
  }, 30_000);

  it('lets a subclass see every request the engine sends, and answer in place of the app', async () => {
    const paths: string[] = [];
    class Recording extends AppClient {
      override async send(request: ExchangeRequest, options?: SendOptions): Promise<Exchange> {
        paths.push(`${request.method} ${request.path}`);
        if (request.path === '/')
          return { method: 'GET', path: '/', isJson: false, failure: 'not sent', ms: 0 };
        return super.send(request, options);
      }
    }
    const client = new Recording(running.url);
    const pages = [];
    for await (const e of readType(client, base)) if (e.kind === 'page') pages.push(e.page);
    expect(pages).toEqual([1, 2, 3, 4, 5]);
    expect(paths).toEqual(Array(5).fill('POST /api/v1/synchronizer/data'));
    expect((await client.send(appRequests.descriptor())).failure).toBe('not sent');
  });
});

describe('single data pages', () => {
  const client = () => new AppClient(running.url);

  it('classifies a page, with the raw exchange', async () => {
    const outcome = await client().dataPage({
      requestedType: 'note',
      types: ['note'],
      filter: {},
      account,
      pagination: null,
    });
    expect(outcome.kind).toBe('page');
    if (outcome.kind !== 'page') return;
    expect(outcome.page).toMatchObject({ hasNext: true, nextPageConfig: expect.any(Object) });
    expect(outcome.page.items).toHaveLength(5);
    expect(outcome.exchange.status).toBe(200);
  });

  it('classifies tryLater and an error answer, never throwing', async () => {
    upstream.busyFor = 1;
    const busy = await client().dataPage({ requestedType: 'note', types: ['note'], filter: {}, account });
    expect(busy.kind).toBe('tryLater');
    expect(busy.kind !== 'page' && busy.error).toMatchObject({ tryLater: true, status: 429 });
    const unknown = await client().dataPage({ requestedType: 'nope', types: ['note'], filter: {}, account });
    expect(unknown.kind).toBe('error');
    expect(unknown.kind !== 'page' && unknown.error.status).toBe(404);
    expect(unknown.kind !== 'page' && unknown.error.message).not.toContain('secret-token-123');
  });

  it('reads a 200 answer that is no data page as an error, keeping what the app sent', async () => {
    answer = (_req, _body, res) => json(res, 200, { items: 'none' });
    const outcome = await new AppClient(bareUrl).dataPage({
      requestedType: 'note',
      types: ['note'],
      filter: {},
      account,
    });
    expect(outcome.kind).toBe('error');
    expect(outcome.kind === 'error' && outcome.error.message).toMatch(/unexpected answer \(items/);
    expect(outcome.exchange.text).toBe('{"items":"none"}');
  });

  it('sends the keys the caller gives: absent ones stay absent, `filter` always goes', async () => {
    answer = (_req, _body, res) => json(res, 200, { items: [] });
    await new AppClient(bareUrl).dataPage({ requestedType: 'note', types: ['note'], filter: {}, account });
    expect(JSON.parse(received.at(-1)?.body ?? '')).toEqual({
      requestedType: 'note',
      types: ['note'],
      filter: {},
      account,
    });
  });

  it('readPage retries tryLater per policy and resolves with the last outcome', async () => {
    upstream.busyFor = 5;
    const retry = { attempts: 3, baseDelayMs: 1, maxDelayMs: 5 };
    const outcome = await readPage(
      client(),
      { requestedType: 'note', types: ['note'], filter: {}, account },
      { retry },
    );
    expect(outcome.kind).toBe('tryLater');
    expect(upstream.busyFor).toBe(2);
    upstream.busyFor = 1;
    expect(
      (await readPage(client(), { requestedType: 'note', types: ['note'], filter: {}, account }, { retry }))
        .kind,
    ).toBe('page');
  });
});

describe('readPages', () => {
  const collect = async (it: AsyncIterable<PagesEvent>) => {
    const events: PagesEvent[] = [];
    for await (const e of it) events.push(e);
    return events;
  };

  it('yields each page with its exchange and what was sent for it', async () => {
    const events = await collect(readPages(new AppClient(running.url), base));
    const pages = events.filter((e) => e.kind === 'page');
    expect(pages.map((p) => p.page)).toEqual([1, 2, 3, 4, 5]);
    expect(pages.every((p) => p.exchange.status === 200 && p.pageSynchronizationType === 'full')).toBe(true);
    expect(JSON.parse(pages[1]?.exchange.requestBody ?? '').pagination).toEqual(pages[1]?.pagination);
    expect(events.at(-1)).toEqual({ kind: 'done', type: 'note', pages: 5, synchronizationType: 'full' });
  });

  it('ends with a failed event (not a throw) after the last tryLater, each retry with its exchange', async () => {
    upstream.busyFor = 9;
    const events = await collect(
      readPages(new AppClient(running.url), { ...base, retry: { attempts: 2, baseDelayMs: 1 } }),
    );
    upstream.busyFor = 0;
    expect(events.map((e) => e.kind)).toEqual(['retry', 'failed']);
    expect(events[0]?.kind === 'retry' && events[0].exchange.status).toBe(429);
    expect(events[1]).toMatchObject({ kind: 'failed', page: 1, pagination: null, error: { tryLater: true } });
  });

  it('does not retry a silent app when told so, and reports the silence', async () => {
    answer = () => {};
    const client = new AppClient(bareUrl, { timeoutMs: 100 });
    const before = received.length;
    const events = await collect(
      readPages(client, { ...base, retry: { attempts: 3, baseDelayMs: 1, retryUnanswered: false } }),
    );
    expect(events.map((e) => e.kind)).toEqual(['failed']);
    expect(events[0]?.kind === 'failed' && events[0].exchange.failure).toBe('no answer within 100 ms');
    expect(received.length - before).toBe(1);
  });

  it('reports a paging loop as a failed event with the page that asked again', async () => {
    answer = (_req, _body, res) =>
      json(res, 200, { items: [{ id: 'a' }], pagination: { hasNext: true, nextPageConfig: { p: 1 } } });
    const events = await collect(readPages(new AppClient(bareUrl), base));
    expect(events.map((e) => e.kind)).toEqual(['page', 'page', 'failed']);
    expect(events[2]).toMatchObject({ page: 2, error: { message: expect.stringMatching(/paging loop/) } });
  });

  it('stops asking for pages when the consumer stops', async () => {
    const seen: Exchange[] = [];
    const client = new AppClient(running.url, { onExchange: (ex) => seen.push(ex) });
    for await (const e of readPages(client, base)) if (e.kind === 'page') break;
    expect(seen).toHaveLength(1);
  });
});

describe('applying rows', () => {
  it('a REMOVE row removes, in a delta answer and in a full one; a row without an id is skipped', () => {
    const items = [
      { id: 1, name: 'one', __syncAction: 'SET' },
      { id: 'two', __syncAction: 'REMOVE' },
      { name: 'no id' },
      { id: 3, name: 'three' },
    ];
    expect(itemAction(items[0] as Record<string, unknown>)).toEqual({
      action: 'set',
      id: '1',
      row: { id: 1, name: 'one' },
    });
    expect(itemAction(items[1] as Record<string, unknown>)).toEqual({ action: 'remove', id: 'two' });
    expect(itemAction(items[2] as Record<string, unknown>)).toEqual({ action: 'skip' });
    expect(splitItems(items)).toEqual({
      set: [
        { id: 1, name: 'one' },
        { id: 3, name: 'three' },
      ],
      remove: ['two'],
      skipped: 1,
    });
  });
});

describe('appRequests', () => {
  it('holds each endpoint once: paths and bodies as the service sends them', () => {
    expect(appRequests.schema(['a'], undefined, {})).toEqual({
      method: 'POST',
      path: '/api/v1/synchronizer/schema',
      body: { types: ['a'], account: {} },
    });
    expect(appRequests.datalist('f', ['a'], {}).body).toEqual({ types: ['a'], account: {}, field: 'f' });
    expect(appRequests.execute('send', { to: 'x' }, {}).body).toEqual({
      action: { action: 'send', args: { to: 'x' } },
      account: {},
    });
    expect(appRequests.deleteWebhook({ types: [], filter: {}, account: {}, webhook: { id: 1 } }).method).toBe(
      'DELETE',
    );
  });
});
