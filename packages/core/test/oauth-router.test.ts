import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { InvalidAccountError, auth, defineApp } from '../src/index.js';
import { descriptorBase, emptyType } from './fixtures/minimal.js';
import { type TestApp, testApp } from '../src/testing/index.js';

// The OAuth flows themselves are tested against real providers in src/oauth; this checks that an
// app definition wires them into the router: the endpoints exist and /validate uses the hook.
let app: TestApp;
beforeAll(async () => {
  app = await testApp(
    defineApp({
      id: 'oauthy',
      name: 'OAuthy',
      ...descriptorBase,
      authentication: [
        auth.oauth2({
          authorizeUrl: 'https://provider.example.com/authorize',
          tokenUrl: 'https://provider.example.com/token',
          scopes: ['read', 'write'],
          clientId: 'client-1',
          clientSecret: 'client-secret-1',
          account: async ({ accessToken }) => {
            if (accessToken !== 'good-access-token') throw new InvalidAccountError('token refused');
            return { name: 'Ada via OAuth', accountId: 'acc-9' };
          },
        }),
      ],
      sync: { types: { t: emptyType } },
    }),
  );
});
afterAll(() => app.close());

describe('OAuth 2 through createServer', () => {
  test('the descriptor lists the oauth2 authentication with its oauth field', async () => {
    const res = await app.descriptor();
    expect(res.body.authentication).toEqual([
      expect.objectContaining({
        id: 'oauth2',
        fields: [expect.objectContaining({ id: 'callback_uri', type: 'oauth' })],
      }),
    ]);
  });
  test('authorize answers the provider address with state, scopes and PKCE', async () => {
    const res = await app.post('/oauth2/v1/authorize', {
      callback_uri: 'https://service.example.com/oauth/callback',
      state: 's-1',
    });
    expect(res.status).toBe(200);
    const url = new URL(res.body.redirect_uri);
    expect(url.origin + url.pathname).toBe('https://provider.example.com/authorize');
    expect(url.searchParams.get('client_id')).toBe('client-1');
    expect(url.searchParams.get('state')).toBe('s-1');
    expect(url.searchParams.get('scope')).toBe('read write');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(res.body.redirect_uri).not.toContain('client-secret-1');
  });
  test('/validate with a fresh token names the account through the hook; a refused one is a 401', async () => {
    const expires = new Date(Date.now() + 3_600_000).toISOString();
    const ok = await app.validate('oauth2', {
      access_token: 'good-access-token',
      refresh_token: 'r',
      expire_on: expires,
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ name: 'Ada via OAuth', accountId: 'acc-9' });
    const bad = await app.validate('oauth2', { access_token: 'bad-access-token', expire_on: expires });
    expect(bad.status).toBe(401);
    expect(JSON.stringify(bad.body)).not.toContain('bad-access-token');
  });
  test('a sync request with an account without access_token is a 401', async () => {
    const res = await app.data('t', { account: {} });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: 'Account field "access_token" is required' });
  });
});
