// A script's `http` service against a local server: answers come back as {status, headers, body},
// and an answer larger than the limit is cut off while it streams (the connection closed early),
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
      res.writeHead(200, { 'content-type': 'application/json', 'x-answer': 'yes' });
      res.end(
        JSON.stringify({
          method: req.method,
          path: req.url,
          header: req.headers['x-test'] ?? null,
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
  it('answers {status, headers, body} for GET and POST with the headers and body given', async () => {
    const outcome = await run(`
      const http = context.getService('http');
      const got = await http.getAsync(args.url + '/get', { headers: { 'x-test': 'one' } });
      const posted = await http.postAsync(args.url + '/post', { body: 'hello', headers: { 'x-test': 'two' } });
      let bad;
      try { await http.getAsync(args.url, { headers: 'nope' }); } catch (e) { bad = e.message; }
      let noUrl;
      try { await http.getAsync(''); } catch (e) { noUrl = e.message; }
      return { got: [got.status, got.headers['x-answer'], JSON.parse(got.body)], posted: JSON.parse(posted.body), bad, noUrl };
    `);
    expect(outcome).toMatchObject({
      ok: true,
      result: {
        got: [200, 'yes', { method: 'GET', path: '/get', header: 'one', body: '' }],
        posted: { method: 'POST', path: '/post', header: 'two', body: 'hello' },
        bad: 'headers must be an object',
        noUrl: 'url must be a non-empty string',
      },
    });
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
