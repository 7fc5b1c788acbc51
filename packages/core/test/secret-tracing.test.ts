// Secret tracing: distinctive secrets in every account, OAuth and webhook field; every endpoint
// driven, with upstreams that echo back what they received (headers, paths, bodies) in their
// errors. No secret may come out, plain or in any encoding, in a log line or a response body
// where it does not belong. The checks decode what they find independently of core's redaction.
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  ActionError,
  arg,
  auth,
  basic,
  bearer,
  createServer,
  createUpstream,
  defineApp,
  field,
  header,
  input,
  jsonLogger,
} from '../src/index.js';
import { descriptorBase } from './fixtures/minimal.js';

const S = {
  token: 'ZQtokSECRET7f3a91',
  password: 'pw:SECRET/+?&=x9',
  apiKey: 'ZQkeySECRETb4c2d8',
  urlSegment: 'ZQhookSECRETe5f6a7',
  clientSecret: 'ZQclientSECRET1d2e',
  accessToken: 'ZQaccessSECRET9a8b',
  refreshToken: 'ZQrefreshSECRET7c6d',
  webhookSecret: 'ZQwebhookSECRET5e4f',
};
const SECRETS = Object.values(S);

let echo: Server;
let base: string;
const lines: string[] = [];

/** An upstream that puts everything it received into its error answer. */
function startEcho(): Promise<void> {
  echo = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      const status = Number(/\/(\d{3})(?:\/|$)/.exec(req.url ?? '')?.[1] ?? 400);
      const told = `got ${req.method} ${req.url} auth=${req.headers.authorization} key=${req.headers['x-api-key']} body=${body}`;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          message: told,
          error: 'invalid_request',
          error_description: `${encodeURIComponent(told)} ${Buffer.from(told).toString('base64')}`,
        }),
      );
    });
  });
  return new Promise((resolve) => echo.listen(0, '127.0.0.1', resolve));
}

beforeAll(async () => {
  await startEcho();
  base = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => echo.close(() => resolve())));

function tracedApp() {
  const upstream = (account: Record<string, string>, log: never, signal: AbortSignal) =>
    createUpstream({
      baseUrl: `${base}/api/${account.token}/`,
      auth: account.password ? basic('ada', account.password) : bearer(account.token!),
      headers: { 'x-api-key': account.apiKey! },
      secrets: [account.apiKey!],
      log,
      signal,
      retries: 1,
      backoff: 1,
    });
  return defineApp({
    id: 'traced',
    name: 'Traced',
    ...descriptorBase,
    authentication: [
      auth.fields({
        id: 'fields',
        name: 'Fields',
        fields: {
          token: input.password({ name: 'Token' }),
          password: input.password({ name: 'Password', optional: true }),
          apiKey: input.text({ name: 'API key', secret: true }),
          hookUrl: input.text({ name: 'Hook URL', secret: true }),
        },
        validate: async (account, { log, signal }) => {
          log.info({ account }, 'validating');
          await upstream(account as never, log as never, signal).get('401/me');
          return { name: 'never' };
        },
      }),
      auth.oauth2({
        authorizeUrl: `${'http://127.0.0.1:9'}/authorize`,
        tokenUrl: 'http://127.0.0.1:9/token',
        clientId: 'traced-client',
        clientSecret: S.clientSecret,
      }),
    ],
    sync: {
      filters: {
        mode: input.text({ name: 'Mode', optional: true }),
        kind: input.list({ name: 'Kind', datalist: true, optional: true }),
      },
      datalists: {
        kind: async ({ account, log, signal }) => {
          log.warn({ note: `listing with ${account.token}` });
          await upstream(account as never, log as never, signal).get('403/modes');
          return [];
        },
      },
      types: {
        row: {
          name: 'Row',
          fields: { id: field.id(), name: field.text() },
          async *data({ account, filter, log, signal }) {
            log.info({ account, filter }, `syncing for ${account.token}`);
            await upstream(account as never, log as never, signal).get(`${filter.mode ?? '502'}/rows`);
            yield { id: '1', name: 'never' };
          },
        },
      },
      webhooks: {
        install: async ({ account, webhook, log, signal }) => {
          log.info({ webhook });
          await upstream(account as never, log as never, signal).post('400/hooks', {
            json: { secret: (webhook as { secret?: string } | null)?.secret },
          });
          return { id: 'never', events: [] };
        },
        uninstall: async ({ webhook }) => {
          throw new ActionError(`cannot remove hook with secret ${(webhook as { secret?: string }).secret}`);
        },
        verify: async ({ payload }) => {
          throw new ActionError(`bad payload ${JSON.stringify(payload)}`);
        },
        transform: async () => ({}),
      },
      resource: async ({ account, log, signal }) => {
        const api = createUpstream({
          baseUrl: (account as Record<string, string>).hookUrl!,
          auth: header('x-api-key', (account as Record<string, string>).apiKey!),
          log,
          signal,
        });
        await api.get('');
        return { body: 'never' };
      },
    },
    actions: {
      post: {
        name: 'Post',
        args: { text: arg.text({ name: 'Text' }) },
        async run({ account, log, signal }) {
          log.info({ account }, 'posting');
          const api = createUpstream({
            baseUrl: (account as Record<string, string>).hookUrl!,
            log,
            signal,
            retries: 0,
          });
          await api.post('', { json: { text: 'hi' } });
        },
      },
    },
  });
}

/** Every way `secret` could be hidden in `text`: plain, percent-decoded, inside base64. */
function leaks(text: string): string[] {
  const found = new Set<string>();
  const views = [text];
  try {
    views.push(decodeURIComponent(text));
  } catch {
    views.push(
      text.replace(/%([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(Number.parseInt(h, 16))),
    );
  }
  for (const candidate of text.match(/[A-Za-z0-9+/_-]{12,}={0,2}/g) ?? []) {
    for (let shift = 0; shift < 4; shift += 1) {
      views.push(Buffer.from(candidate.slice(shift), 'base64').toString('latin1'));
    }
  }
  for (const view of views) {
    for (const secret of SECRETS) if (view.includes(secret)) found.add(secret);
    if (view.includes(S.urlSegment)) found.add(S.urlSegment);
  }
  return [...found];
}

describe('secret tracing', () => {
  test('no secret, in any encoding, in any log line or error answer over every endpoint', async () => {
    const app = createServer(tracedApp(), {
      logger: jsonLogger((line) => lines.push(line)),
      pageKeys: ['trace-key'],
    });
    const account = {
      token: S.token,
      apiKey: S.apiKey,
      hookUrl: `${base}/hooks/T0/B0/${S.urlSegment}`,
    };
    const withPassword = { ...account, password: S.password };
    const oauthAccount = { access_token: S.accessToken, refresh_token: S.refreshToken };
    const webhook = { id: 'w1', secret: S.webhookSecret };
    const calls: [string, string, unknown][] = [
      ['post', '/validate', { id: 'fields', fields: account }],
      ['post', '/validate', { id: 'fields', fields: withPassword }],
      ['post', '/validate', { id: 'oauth2', fields: oauthAccount }],
      ['post', '/api/v1/synchronizer/config', { account }],
      ['post', '/api/v1/synchronizer/schema', { account, types: ['row'] }],
      ['post', '/api/v1/synchronizer/data', { requestedType: 'row', account, filter: {} }],
      [
        'post',
        '/api/v1/synchronizer/data',
        { requestedType: 'row', account: withPassword, filter: { mode: '401' } },
      ],
      ['post', '/api/v1/synchronizer/data', { requestedType: 'row', account, filter: { mode: '404' } }],
      ['post', '/api/v1/synchronizer/data', { requestedType: 'row', account: oauthAccount, filter: {} }],
      ['post', '/api/v1/synchronizer/datalist', { field: 'kind', account }],
      ['post', '/api/v1/synchronizer/filter/validate', { account, filter: { mode: S.token } }],
      ['post', '/api/v1/synchronizer/webhooks', { account, filter: {}, webhook }],
      ['delete', '/api/v1/synchronizer/webhooks', { account, filter: {}, webhook }],
      [
        'post',
        '/api/v1/synchronizer/webhooks/verify',
        { params: {}, payload: { token: S.token, secret: S.webhookSecret } },
      ],
      ['post', '/api/v1/synchronizer/webhooks/transform', { params: {}, payload: {}, account, filter: {} }],
      ['post', '/api/v1/synchronizer/resource', { account, filter: {}, params: {} }],
      [
        'post',
        '/api/v1/automations/action/execute',
        { action: { action: 'post', args: { text: 'x' } }, account },
      ],
      [
        'post',
        '/oauth2/v1/access_token',
        { code: 'code-1', fields: { callback_uri: 'https://svc.example/cb' } },
      ],
      ['post', '/oauth2/v1/authorize', { callback_uri: 'https://svc.example/cb', state: 's1' }],
    ];
    const answers: string[] = [];
    for (const [method, path, body] of calls) {
      const res = await (method === 'post' ? request(app).post(path) : request(app).delete(path)).send(
        body as object,
      );
      answers.push(`${method} ${path} -> ${res.status} ${res.text}`);
    }
    const all = [...answers, ...lines].join('\n');
    // The upstreams really were called, and their echoes really contained the secrets.
    expect(all).toContain('got GET');
    expect(all).toContain('Retrying upstream request');
    expect(all).toContain('[redacted]');
    const found = [...answers, ...lines].flatMap((text) =>
      leaks(text).map((secret) => `${secret} in: ${text.slice(0, 300)}`),
    );
    expect(found).toEqual([]);
  }, 60_000);

  test('the checker finds what it looks for (plain, percent-encoded, base64 at any offset)', () => {
    expect(leaks(`x ${S.token} y`)).toEqual([S.token]);
    expect(leaks(encodeURIComponent(S.password))).toEqual([S.password]);
    expect(leaks(Buffer.from(`ada:${S.password}`).toString('base64'))).toEqual([S.password]);
    expect(leaks(Buffer.from(`xy${S.apiKey}`).toString('base64url'))).toEqual([S.apiKey]);
    expect(leaks(`/hooks/T0/B0/${S.urlSegment}`)).toEqual([S.urlSegment]);
  });
});
