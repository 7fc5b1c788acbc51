// The workspace's HTTP layer against an outsider, over real HTTP: a body is read only by a route
// that takes one (after its token check), within that route's limit and core's nesting depth; an
// unknown path is answered without its body being read; every answer says nosniff; a download is
// an attachment of a type no browser runs; an upload of exactly the limit is kept. Runs on PGlite,
// and on Postgres when WEFT_TEST_DATABASE_URL is set.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromEnv, everyInterfaceNotice } from '../src/config.js';
import { startHostedOn } from '../src/host/fixtures/hosted-on.js';
import type { HostedWorkspace } from '../src/host/start-hosted-workspace.js';
import { describeEachDatabase } from './support/databases.js';
import { rawExchange, requestHead } from './support/raw-http.js';

const TOKEN = `admin-${randomUUID()}`;
const MAX_FILE = 1000;
/** nested deeper than the data API's 256 levels (and the event URL's 63) */
const DEEP = `${'['.repeat(300)}${']'.repeat(300)}`;

describeEachDatabase('HTTP bodies, headers and files', (target) => {
  let ws: HostedWorkspace;
  let close: () => Promise<void> = async () => {};

  beforeAll(async () => {
    ({ ws, close } = await startHostedOn(target, 'hardening-http', {
      adminToken: TOKEN,
      maxFileBytes: MAX_FILE,
    }));
  });
  afterAll(() => close());

  async function send(method: string, path: string, body: string, headers: Record<string, string> = {}) {
    const res = await fetch(ws.url + path, {
      method,
      headers: { authorization: `Token ${TOKEN}`, 'content-type': 'application/json', ...headers },
      body,
    });
    const text = await res.text();
    let parsed: any = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    return { status: res.status, body: parsed, headers: res.headers };
  }

  describe('bodies', () => {
    // The start of a 60 MB body: each test sends only this much and expects an answer anyway.
    const BIG = 60 * 1024 * 1024;
    const start = '['.repeat(64 * 1024);

    it('an unknown path is answered 404 without its body being read, and the connection closed', async () => {
      for (const path of ['/no-such-path', `/hooks/nothing/${randomUUID()}`]) {
        const answer = await rawExchange(
          ws.url,
          requestHead('POST', path, { 'content-type': 'application/json', 'content-length': BIG }),
          start,
        );
        expect(answer.status).toBe(404);
        expect(answer.body).toMatchObject({ code: 'not-found' });
        expect(answer.headers.connection).toBe('close');
      }
      // a request without a body keeps its connection
      const get = await fetch(`${ws.url}/no-such-path`);
      expect(get.status).toBe(404);
      expect(get.headers.get('connection')).toBe('keep-alive');
      await get.arrayBuffer();
    });

    it('an authenticated request to an unknown /api path is not read either', async () => {
      const answer = await rawExchange(
        ws.url,
        requestHead('POST', '/api/no-such-route', {
          authorization: `Token ${TOKEN}`,
          'content-type': 'application/json',
          'content-length': BIG,
        }),
        start,
      );
      expect(answer.status).toBe(404);
      expect(answer.headers.connection).toBe('close');
    });

    it('a request without a token is refused before its body is read', async () => {
      const answer = await rawExchange(
        ws.url,
        requestHead('POST', '/api/commands', { 'content-type': 'application/json', 'content-length': BIG }),
        start,
      );
      expect(answer.status).toBe(401);
      expect(answer.body).toMatchObject({ code: 'unauthorized' });
      expect(answer.headers.connection).toBe('close');
    });

    it('the event URL refuses a body over its limit (4 MB) as soon as it is declared', async () => {
      const answer = await rawExchange(
        ws.url,
        requestHead('POST', `/hooks/sources/${randomUUID()}`, {
          'content-type': 'application/json',
          'content-length': BIG,
        }),
        start,
      );
      expect(answer.status).toBe(413);
      expect(answer.body).toEqual({ message: expect.stringMatching(/too large/), code: 'bad-request' });
      expect(answer.headers.connection).toBe('close');
    });

    it('the event URL refuses a body sent whole over its limit, of any content type', async () => {
      const res = await fetch(`${ws.url}/hooks/sources/${randomUUID()}`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: 'x'.repeat(4 * 1024 * 1024 + 1),
      });
      expect(res.status).toBe(413);
    });

    it('the event URL refuses a body nested deeper than 63 levels, labelled JSON or not', async () => {
      for (const type of ['application/json', 'text/plain']) {
        const res = await fetch(`${ws.url}/hooks/sources/${randomUUID()}`, {
          method: 'POST',
          headers: { 'content-type': type },
          body: `{"event":${'['.repeat(63)}${']'.repeat(63)}}`,
        });
        expect(res.status).toBe(400);
        expect(await res.json()).toEqual({
          message: 'Request body is nested deeper than 63 levels',
          code: 'bad-request',
        });
      }
    });

    it('a command batch nested deeper than 256 levels is refused before it is parsed', async () => {
      const res = await send(
        'POST',
        '/api/commands',
        JSON.stringify([{ command: 'svc.schema/query', args: {} }]).replace('{}', DEEP),
      );
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        message: 'Request body is nested deeper than 256 levels',
        code: 'bad-request',
      });
    });

    it('JSON-RPC answers a body too deep or malformed with its parse error', async () => {
      const deep = await send(
        'POST',
        '/api/views/json-rpc',
        `{"jsonrpc":"2.0","id":1,"method":"query-views","params":{"x":${DEEP}}}`,
      );
      expect(deep.status).toBe(200);
      expect(deep.body).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32700, message: 'Parse error: Request body is nested deeper than 256 levels' },
      });
      const malformed = await send('POST', '/api/views/json-rpc', '{"jsonrpc":');
      expect(malformed.body).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32700, message: 'Parse error' },
      });
    });

    it('each route has its own limit: a small route refuses what the command batch takes', async () => {
      const padding = 'p'.repeat(100 * 1024);
      const token = await send('POST', '/api/tokens', JSON.stringify({ name: 'x', padding }));
      expect(token.status).toBe(413);
      expect(token.body).toEqual({
        message: `The request body is too large (at most ${16 * 1024} bytes here)`,
        code: 'bad-request',
      });
      const source = await send(
        'PATCH',
        `/api/host/sources/${randomUUID()}`,
        JSON.stringify({ padding: padding.repeat(3) }),
      );
      expect(source.status).toBe(413);
      const batch = await send(
        'POST',
        '/api/commands',
        JSON.stringify([{ command: 'svc.schema/query', args: {}, padding: padding.repeat(20) }]),
      );
      expect(batch.status).toBe(200);
      expect(batch.body[0].success).toBe(true);
    });

    it('malformed JSON is still a 400 with a message', async () => {
      const res = await send('POST', '/api/commands', '[{"command":');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: 'The body is not valid JSON', code: 'bad-request' });
    });
  });

  describe('headers and files', () => {
    it('every answer says X-Content-Type-Options: nosniff', async () => {
      for (const [path, auth] of [
        ['/', false],
        ['/nothing-here', false],
        ['/api/commands', false],
        ['/api/tokens', true],
        ['/ui/login', false],
      ] as const) {
        const res = await fetch(ws.url + path, auth ? { headers: { authorization: `Token ${TOKEN}` } } : {});
        await res.arrayBuffer();
        expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
      }
    });

    async function upload(bytes: Buffer | string, name: string, type: string) {
      const form = new FormData();
      form.append('file', new Blob([bytes], { type }), name);
      const res = await fetch(`${ws.url}/api/files`, {
        method: 'POST',
        headers: { authorization: `Token ${TOKEN}` },
        body: form,
      });
      return { status: res.status, body: (await res.json()) as Record<string, string> };
    }

    async function download(secret: string) {
      const res = await fetch(`${ws.url}/api/files/${secret}`, {
        headers: { authorization: `Token ${TOKEN}` },
      });
      const text = await res.text();
      return { status: res.status, text, headers: res.headers };
    }

    it('a file is always downloaded as an attachment, and never as a type a browser runs', async () => {
      const cases = [
        ['page.html', 'text/html', 'application/octet-stream'],
        ['page.xhtml', 'application/xhtml+xml', 'application/octet-stream'],
        ['logo.svg', 'image/svg+xml', 'application/octet-stream'],
        ['photo.png', 'image/png', 'image/png'],
        ['notes.txt', 'text/plain; charset=utf-7', 'text/plain; charset=utf-8'],
      ] as const;
      for (const [name, type, served] of cases) {
        const content = `<script>alert(document.domain)</script>${name}`;
        const up = await upload(content, name, type);
        expect(up.status).toBe(200);
        const down = await download(up.body['svc/secret']!);
        expect(down.status).toBe(200);
        expect(down.text).toBe(content);
        expect(down.headers.get('content-type'), name).toBe(served);
        expect(down.headers.get('content-disposition')).toBe(`attachment; filename*=UTF-8''${name}`);
        expect(down.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
        expect(down.headers.get('x-content-type-options')).toBe('nosniff');
      }
    });

    it('an upload of exactly the limit is kept; one byte more is refused', async () => {
      const exact = await upload(Buffer.alloc(MAX_FILE, 7), 'exact.bin', 'application/octet-stream');
      expect(exact.status).toBe(200);
      const down = await download(exact.body['svc/secret']!);
      expect(down.headers.get('content-length')).toBe(String(MAX_FILE));
      const over = await upload(Buffer.alloc(MAX_FILE + 1, 7), 'over.bin', 'application/octet-stream');
      expect(over.status).toBe(413);
      expect(over.body).toEqual({
        message: `A file may hold at most ${MAX_FILE} bytes`,
        code: 'bad-request',
      });
    });
  });
});

describe('where the workspace listens', () => {
  it('on 127.0.0.1 unless HOST says otherwise', () => {
    expect(configFromEnv({}).host).toBe('127.0.0.1');
    expect(configFromEnv({ HOST: '' }).host).toBe('127.0.0.1');
    expect(configFromEnv({ HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
  });
  it('says so when it listens on every interface', () => {
    expect(everyInterfaceNotice('127.0.0.1')).toBeUndefined();
    expect(everyInterfaceNotice('0.0.0.0')).toMatch(/every network interface/);
    expect(everyInterfaceNotice('::')).toMatch(/every network interface/);
  });
});
