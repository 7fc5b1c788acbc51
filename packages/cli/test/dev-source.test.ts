// `weft dev`'s source against a real hosted workspace (PGlite, and Postgres when
// WEFT_TEST_DATABASE_URL is set) and a raw node:http app over HTTP: OAuth 2 and OAuth 1 accounts
// connected unattended through a demo provider that approves at once (the test follows the printed
// address as a browser would; weft dev opens nothing), OAuth tokens given with --account, the
// authentication chosen with --auth and its undeclared keys passed through, and --account for a
// source that exists (validated, replacing the stored account) or not given (the stored one used).
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type HostedWorkspace, SecretBox, startHostedWorkspace } from '@weft/workspace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../../workspace/test/support/databases.js';
import { devSource } from '../src/commands/dev-source.js';
import { UsageError } from '../src/io.js';
import { capture } from './support/capture.js';

type Json = Record<string, unknown>;

/** An app with the given authentications; its provider (under /provider) approves every request at once. */
function oauthApp(authentication: Json[], name: string, options: { refuseCode?: boolean } = {}) {
  const calls: { path: string; body: Json }[] = [];
  let base = '';
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const redirect = (res: ServerResponse, to: URL) => res.writeHead(302, { location: to.href }).end();
  const routes: Record<string, (body: Json, query: URLSearchParams, res: ServerResponse) => void> = {
    'GET /': (_b, _q, res) =>
      json(res, 200, {
        name,
        version: '1',
        website: 'http://127.0.0.1/',
        description: 'd',
        authentication,
        sources: [],
        responsibleFor: { dataSynchronization: true },
      }),
    'POST /validate': (body, _q, res) => {
      const f = body.fields as Json;
      const id = String(body.id);
      if (id === 'key' && f.key !== 'good') return json(res, 401, { message: 'Unknown key' });
      if (id.startsWith('oauth') && typeof f.access_token !== 'string')
        return json(res, 401, { message: 'No token' });
      // A token near its end is refreshed, as /validate does before every sync.
      json(res, 200, {
        name: `${id} user`,
        ...(f.access_token === 'old' ? { access_token: 'refreshed' } : {}),
      });
    },
    'POST /oauth2/v1/authorize': (body, _q, res) => {
      const to = new URL(`${base}/provider/approve`);
      to.searchParams.set('redirect', String(body.callback_uri));
      to.searchParams.set('state', String(body.state));
      json(res, 200, { redirect_uri: to.href });
    },
    'POST /oauth2/v1/access_token': (body, _q, res) =>
      options.refuseCode
        ? json(res, 401, { message: 'The code was not granted' })
        : json(res, 200, { access_token: `token-for-${body.code}`, refresh_token: 'r' }),
    'POST /oauth1/v1/authorize': (body, _q, res) => {
      const to = new URL(`${base}/provider/approve1`);
      to.searchParams.set('redirect', String(body.callback_uri));
      json(res, 200, { redirect_uri: to.href, token: 'request-token', secret: 'request-secret' });
    },
    'POST /oauth1/v1/access_token': (body, _q, res) => {
      const f = body.fields as Json;
      if (f.access_token !== 'request-token' || f.access_secret !== 'request-secret')
        return json(res, 401, { message: 'bad request token' });
      json(res, 200, { access_token: `token-for-${body.oauth_verifier}`, access_secret: 's' });
    },
    // The demo provider: approves at once and sends the browser back.
    'GET /provider/approve': (_b, q, res) => {
      const back = new URL(String(q.get('redirect')));
      back.searchParams.set('code', 'c0de');
      back.searchParams.set('state', String(q.get('state')));
      redirect(res, back);
    },
    'GET /provider/approve1': (_b, q, res) => {
      const back = new URL(String(q.get('redirect')));
      back.searchParams.set('oauth_token', 'request-token');
      back.searchParams.set('oauth_verifier', 'v3rifier');
      redirect(res, back);
    },
    'POST /api/v1/synchronizer/config': (_b, _q, res) =>
      json(res, 200, { types: [{ id: 'me', name: 'Me' }] }),
    'POST /api/v1/synchronizer/schema': (_b, _q, res) =>
      json(res, 200, { me: { id: { type: 'id', name: 'Id' }, name: { type: 'text', name: 'Name' } } }),
    'POST /api/v1/synchronizer/data': (body, _q, res) =>
      json(res, 200, {
        items: [{ id: 'u1', name: String((body.account as Json).access_token ?? 'nobody') }],
      }),
  };
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      const at = new URL(req.url ?? '/', 'http://x');
      const body = (text ? JSON.parse(text) : {}) as Json;
      calls.push({ path: at.pathname, body });
      const route = routes[`${req.method} ${at.pathname}`];
      if (route) route(body, at.searchParams, res);
      else json(res, 404, { message: 'not found' });
    });
  });
  return {
    calls,
    start: () =>
      new Promise<{ url: string; server: Server }>((resolve) => {
        server.listen(0, '127.0.0.1', () => {
          base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
          resolve({ url: base, server });
        });
      }),
  };
}

const stopServer = async (s: Server | undefined) => {
  s?.closeAllConnections();
  await new Promise((r) => s?.close(r));
};

/** Plays the browser: follows the printed address to the workspace's callback. */
async function approve(printed: string): Promise<number> {
  const at = /^ {2}(http\S+)$/m.exec(printed)?.[1];
  expect(at, printed).toBeDefined();
  return (await fetch(at as string)).status;
}

for (const target of databaseTargets()) {
  describe(`weft dev's source [${target.name}]`, () => {
    let ws: HostedWorkspace;
    let drop: () => Promise<void> = async () => {};
    const servers: Server[] = [];
    const serve = async (a: ReturnType<typeof oauthApp>) => {
      const { url, server } = await a.start();
      servers.push(server);
      return url;
    };

    beforeAll(async () => {
      const db = await target.create();
      drop = db.drop;
      ws = await startHostedWorkspace({
        database: db.database,
        adminToken: 'dev-source-token',
        rateLimit: 0,
        webhooks: false,
        box: new SecretBox('dev-source-key'),
        hostOptions: { scheduleEveryMs: 0 },
        log: () => {},
      });
    }, 60_000);
    afterAll(async () => {
      for (const s of servers) await stopServer(s);
      await ws?.close();
      await drop();
    });

    it('connects an OAuth 2 account through the printed address, unattended, then syncs with it', async () => {
      const url = await serve(oauthApp([{ id: 'oauth2', name: 'OAuth 2' }], 'Two'));
      const io = capture();
      const connecting = devSource(ws, url, { pollMs: 20 }, io);
      await expect.poll(() => io.out(), { timeout: 30_000 }).toContain('Waiting for the provider');
      expect(await approve(io.out())).toBe(200);
      const source = await connecting;
      expect(source).toMatchObject({ authId: 'oauth2', accountName: 'oauth2 user' });
      expect(io.out()).toContain('Authorized: account oauth2 user');
      const run = await ws.apps.sync(source.id, { wait: true });
      expect(run.status, run.error ?? '').toBe('succeeded');
      const [found] = await ws.execute([
        { command: 'svc.entity/query', args: { query: { 'q/from': 'two/me', 'q/select': ['two/name'] } } },
      ]);
      expect((found as { result: Json[] }).result).toEqual([{ 'two/name': 'token-for-c0de' }]);
    });

    it('stops waiting when the callback fails, with the reason', async () => {
      const url = await serve(oauthApp([{ id: 'oauth2', name: 'OAuth 2' }], 'Refused', { refuseCode: true }));
      const io = capture();
      const connecting = devSource(ws, url, { pollMs: 20 }, io);
      connecting.catch(() => {});
      await expect.poll(() => io.out(), { timeout: 30_000 }).toContain('Waiting for the provider');
      expect(await approve(io.out())).toBe(400);
      await expect(connecting).rejects.toThrow(
        'the OAuth connection failed: POST /oauth2/v1/access_token: The code was not granted',
      );
    });

    it('connects an OAuth 1 account the same way', async () => {
      const url = await serve(oauthApp([{ id: 'oauth', name: 'OAuth 1' }], 'One'));
      const io = capture();
      const connecting = devSource(ws, url, { pollMs: 20 }, io);
      await expect.poll(() => io.out(), { timeout: 30_000 }).toContain('Waiting for the provider');
      expect(await approve(io.out())).toBe(200);
      expect(await connecting).toMatchObject({ authId: 'oauth', accountName: 'oauth user' });
    });

    it('takes OAuth tokens given with --account, refreshed through /validate', async () => {
      const app = oauthApp([{ id: 'oauth2', name: 'OAuth 2' }], 'Tokens');
      const url = await serve(app);
      const source = await devSource(
        ws,
        url,
        { account: { access_token: 'old', refresh_token: 'r' } },
        capture(),
      );
      expect(source.authId).toBe('oauth2');
      expect((await ws.apps.sync(source.id, { wait: true })).status).toBe('succeeded');
      const data = app.calls.find((c) => c.path === '/api/v1/synchronizer/data');
      expect((data?.body.account as Json | undefined)?.access_token).toBe('refreshed');
    });

    it('takes the authentication an account names with its auth key', async () => {
      const app = oauthApp(
        [
          { id: 'none', name: 'Public' },
          {
            id: 'key',
            name: 'Key',
            fields: [{ id: 'key', name: 'Key', type: 'password', description: 'k' }],
          },
        ],
        'Named',
      );
      const url = await serve(app);
      const io = capture();
      const source = await devSource(ws, url, { account: { auth: 'key', key: 'good' } }, io);
      expect(source.authId).toBe('key');
      expect(io.out()).not.toContain('does not declare');
    });

    it('uses the chosen authentication, says once which keys it does not declare, and keeps them', async () => {
      const app = oauthApp(
        [
          { id: 'none', name: 'Public' },
          {
            id: 'key',
            name: 'Key',
            fields: [{ id: 'key', name: 'Key', type: 'password', description: 'k' }],
          },
        ],
        'Keyed',
      );
      const url = await serve(app);
      await expect(devSource(ws, url, { auth: 'nope' }, capture())).rejects.toThrow(UsageError);
      const io = capture();
      const source = await devSource(ws, url, { auth: 'key', account: { key: 'good', libraryId: '42' } }, io);
      expect(source.authId).toBe('key');
      expect(io.out().match(/does not declare/g)).toHaveLength(1);
      expect(io.out()).toContain('passed to the app as they are: libraryId');
      expect((await ws.apps.sync(source.id, { wait: true })).status).toBe('succeeded');
      const data = app.calls.find((c) => c.path === '/api/v1/synchronizer/data');
      expect(data?.body.account).toMatchObject({ key: 'good', libraryId: '42', auth: 'key' });

      // Again without --account: the stored account is used, and said so.
      const again = capture();
      await devSource(ws, url, {}, again);
      expect(again.out()).toContain('Using the stored account key user');
      // With --account: validated (a refused one changes nothing), then it replaces the stored one.
      await expect(devSource(ws, url, { account: { key: 'wrong' } }, capture())).rejects.toThrow(
        'Unknown key',
      );
      const validations = app.calls.filter((c) => c.path === '/validate').length;
      const replaced = capture();
      await devSource(ws, url, { account: { key: 'good', libraryId: '43' } }, replaced);
      expect(replaced.out()).toContain('Account replaced: validated by the app as key user');
      expect(app.calls.filter((c) => c.path === '/validate').length).toBe(validations + 1);
      expect((await ws.apps.sync(source.id, { wait: true })).status).toBe('succeeded');
      const last = app.calls.filter((c) => c.path === '/api/v1/synchronizer/data').at(-1);
      expect((last?.body.account as Json | undefined)?.libraryId).toBe('43');
    });
  });
}
