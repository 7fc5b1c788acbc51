// A script's `http` service against a local server: answers come back as the body's text (a status
// outside 2xx rejects with the answer under `innerError`), and an answer larger than the limit is cut off while it streams (the connection closed early),
// never read whole into the workspace's memory.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboundPolicy } from '../outbound/index.js';
import { readAll, scriptFetch } from './script-fetch.js';
import { MAX_HTTP_BYTES, scriptHttp } from './script-http.js';
import { runScript } from './script-runner.js';

const FLOOD_BYTES = 256 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 'z');

let server: Server;
let url: string;
/** what the server saw of the last /flood request, once its connection closed */
let flood: Promise<{ sent: number; finished: boolean }>;

/** Writes up to FLOOD_BYTES, as fast as the reader takes them, and tells how far it got. */
function streamFlood(res: ServerResponse) {
  flood = new Promise((resolve) => {
    let sent = 0;
    res.on('close', () => resolve({ sent, finished: res.writableFinished }));
    res.writeHead(200, { 'content-type': 'text/plain' });
    const pump = () => {
      while (sent < FLOOD_BYTES && !res.destroyed) {
        sent += CHUNK.length;
        if (!res.write(CHUNK)) return void res.once('drain', pump);
      }
      if (!res.destroyed) res.end();
    };
    pump();
  });
}

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/flood') return streamFlood(res);
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const status = req.url?.startsWith('/refuse') ? 422 : 200;
      res.writeHead(status, { 'content-type': 'application/json', 'x-answer': 'yes' });
      res.end(
        JSON.stringify({
          method: req.method,
          path: req.url,
          header: req.headers['x-test'] ?? null,
          type: req.headers['content-type'] ?? null,
          body: Buffer.concat(parts).toString('utf8'),
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

// The test's server is on loopback: allowed here as in `weft dev`; the last test refuses it.
const local = new OutboundPolicy({ allowPrivateNetworks: true });
const run = (code: string, policy = local) =>
  runScript(code, { url }, { svc: {}, http: scriptHttp(policy) }, 30_000);

describe('script http service', () => {
  it('answers the body as text for GET, POST, PUT and DELETE, as scripts written for the service read it', async () => {
    const outcome = await run(`
      const http = context.getService('http');
      const got = await http.getAsync(args.url + '/get', { headers: { 'x-test': 'one' } });
      const posted = await http.postAsync(args.url + '/post', { body: 'hello', headers: { 'x-test': 'two' } });
      const json = await http.postAsync(args.url + '/json', { body: [{ command: 'svc.schema/query' }] });
      const put = await http.putAsync(args.url + '/put', { body: { a: 1 }, headers: { 'Content-Type': 'text/x' } });
      const deleted = await http.deleteAsync(args.url + '/delete');
      let bad;
      try { await http.getAsync(args.url, { headers: 'nope' }); } catch (e) { bad = e.message; }
      let noUrl;
      try { await http.getAsync(''); } catch (e) { noUrl = e.message; }
      let refused;
      try { await http.postAsync(args.url + '/refuse?token=secret', { body: 'x' }); } catch (e) {
        refused = { message: e.message, status: e.innerError.statusCode, body: JSON.parse(e.innerError.body).path };
      }
      return { kind: typeof got, got: JSON.parse(got), posted: JSON.parse(posted), json: JSON.parse(json),
        put: JSON.parse(put), deleted: JSON.parse(deleted).method, bad, noUrl, refused };
    `);
    expect(outcome).toMatchObject({
      ok: true,
      result: {
        kind: 'string',
        got: { method: 'GET', path: '/get', header: 'one', body: '' },
        posted: { method: 'POST', path: '/post', header: 'two', body: 'hello' },
        // A body that is not a string goes as JSON, with its type unless the headers name one.
        json: { body: '[{"command":"svc.schema/query"}]', type: 'application/json' },
        put: { method: 'PUT', body: '{"a":1}', type: 'text/x' },
        deleted: 'DELETE',
        bad: 'headers must be an object',
        noUrl: 'url must be a non-empty string',
        // The host only in the message: the query may hold a secret.
        refused: {
          message: expect.not.stringContaining('secret'),
          status: 422,
          body: '/refuse?token=secret',
        },
      },
    });
    expect((outcome as { result: { refused: { message: string } } }).result.refused.message).toMatch(
      /^POST to 127\.0\.0\.1:\d+ answered HTTP 422$/,
    );
  });

  it('utils answers at once: an entity page by public id, a file address, a uuid', async () => {
    const outcome = await runScript(
      `const utils = context.getService('utils');
       return [utils.getEntityUrl('Shop/Order item', 12), utils.getFileUrl('abc'), utils.uuid(), utils.uuid()];`,
      {},
      { svc: {}, http: scriptHttp(local), origin: 'http://127.0.0.1:3100' },
      30_000,
    );
    expect(outcome.ok).toBe(true);
    const [page, file, a, b] = (outcome as { result: string[] }).result;
    expect(page).toBe('http://127.0.0.1:3100/ui/entity?type=Shop%2FOrder%20item&public-id=12');
    expect(file).toBe('http://127.0.0.1:3100/api/files/abc');
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a).not.toBe(b);
  });

  it('stops reading an answer at the size limit and closes the connection', async () => {
    const outcome = await run(
      `await context.getService('http').getAsync(args.url + '/flood'); return 'read it all';`,
    );
    expect(outcome).toMatchObject({
      ok: false,
      message: `The answer is larger than ${MAX_HTTP_BYTES / 1024 / 1024} MB; the rest was not read`,
    });
    const seen = await flood;
    expect(seen.finished).toBe(false);
    // What was sent past the limit is what the sockets' buffers held when the reader stopped.
    expect(seen.sent).toBeLessThan(FLOOD_BYTES / 4);
  });

  it('scriptFetch cuts a body at its own limit, and close() drops an answer unread', async () => {
    const limits = { maxBytes: 1024 * 1024, timeoutMs: 30_000, tooLarge: 'too large here' };
    const cut = await scriptFetch(local, `${url}/flood`, { method: 'GET', headers: {} }, limits);
    await expect(readAll(cut.body)).rejects.toThrow('too large here');
    expect((await flood).finished).toBe(false);

    const unread = await scriptFetch(local, `${url}/flood`, { method: 'GET', headers: {} }, limits);
    expect(unread.status).toBe(200);
    unread.close();
    const seen = await flood;
    expect(seen.finished).toBe(false);
    expect(seen.sent).toBeLessThan(FLOOD_BYTES / 4);

    const small = await scriptFetch(
      local,
      `${url}/small`,
      { method: 'POST', headers: {}, body: 'b' },
      limits,
    );
    expect(JSON.parse((await readAll(small.body)).toString('utf8'))).toMatchObject({
      method: 'POST',
      body: 'b',
    });
  });

  it('goes through the outbound policy: loopback refused when private networks are', async () => {
    let requests = 0;
    server.once('request', () => {
      requests += 1;
    });
    const outcome = await run(
      `await context.getService('http').getAsync(args.url + '/small'); return 'reached';`,
      new OutboundPolicy({ allowPrivateNetworks: false }),
    );
    expect(outcome).toMatchObject({ ok: false, message: expect.stringMatching(/loopback/) });
    expect(requests).toBe(0);
  });
});
