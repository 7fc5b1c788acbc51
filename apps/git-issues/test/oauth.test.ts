// OAuth 2 against the live stand-in (the token exchange is core's OAuth client, not the upstream
// client, so it is not in a cassette): the authorize address, the code exchange, and the refresh
// at /validate when the token is due.
import { type TestApp, testApp } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGitIssuesApp } from '../src/app.js';
import { CLIENT, REFRESH_TOKEN, type StandIn, TOKENS, startStandIn } from '../src/demo-github.js';

// Live, also when the other files record: this file has no cassette.
process.env.WEFT_UPSTREAM = 'off';

let standIn: StandIn;
let app: TestApp;
beforeAll(async () => {
  standIn = await startStandIn(0);
  app = await testApp(
    createGitIssuesApp({
      apiUrl: standIn.url,
      webUrl: standIn.url,
      clientId: CLIENT.id,
      clientSecret: CLIENT.secret,
    }),
  );
});
afterAll(async () => {
  await app.close();
  await standIn.close();
});

describe('git-issues: OAuth 2', () => {
  it('sends the user to GitHub’s authorize page with the scopes', async () => {
    const answer = await app.post('/oauth2/v1/authorize', {
      callback_uri: 'https://service.example/cb',
      state: 's1',
    });
    expect(answer.status).toBe(200);
    const url = new URL(answer.body.redirect_uri);
    expect(`${url.origin}${url.pathname}`).toBe(`${standIn.url}/login/oauth/authorize`);
    expect(url.searchParams.get('client_id')).toBe(CLIENT.id);
    expect(url.searchParams.get('scope')).toBe('repo admin:repo_hook');
    expect(url.searchParams.get('state')).toBe('s1');
  });

  it('exchanges the code for tokens; a bad code is a 401', async () => {
    const answer = await app.post('/oauth2/v1/access_token', {
      fields: { callback_uri: 'https://service.example/cb' },
      code: 'good-code',
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ access_token: TOKENS.good, refresh_token: REFRESH_TOKEN });
    expect(Date.parse(answer.body.expire_on)).toBeGreaterThan(Date.now());
    const bad = await app.post('/oauth2/v1/access_token', {
      fields: { callback_uri: 'https://service.example/cb' },
      code: 'stolen',
    });
    expect(bad.status).toBe(401);
  });

  it('refreshes a token that is due at /validate and answers the new one', async () => {
    const answer = await app.validate('oauth2', {
      access_token: TOKENS.good,
      refresh_token: REFRESH_TOKEN,
      token_type: 'bearer',
      expire_on: new Date(Date.now() - 60_000).toISOString(),
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ name: 'mona', accountId: '583231', access_token: TOKENS.refreshed });
  });
});

describe('git-issues: the demo GitHub’s authorize page', () => {
  const callback = 'http://127.0.0.1:1/hooks/oauth2/callback';
  const authorizeUrl = async (callbackUri: string) => {
    const answer = await app.post('/oauth2/v1/authorize', { callback_uri: callbackUri, state: 's2' });
    return String(answer.body.redirect_uri);
  };
  const exchange = (code: string, callbackUri = callback) =>
    app.post('/oauth2/v1/access_token', { fields: { callback_uri: callbackUri }, code });

  it('asks first, like GitHub; Authorize sends a one-time code and the state back', async () => {
    const page = await fetch(await authorizeUrl(callback), { redirect: 'manual' });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<form method="post" action="/login/oauth/authorize">');
    // Submit the form as a browser would: its hidden fields and the Authorize button.
    const form = new URLSearchParams(
      [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map(
        ([, name, value]): [string, string] => [
          name!,
          value!.replace(/&#(\d+);/g, (_, c) => String.fromCharCode(Number(c))),
        ],
      ),
    );
    form.set('authorize', '1');
    const approved = await fetch(`${standIn.url}/login/oauth/authorize`, {
      method: 'POST',
      body: form,
      redirect: 'manual',
    });
    expect(approved.status).toBe(302);
    const back = new URL(approved.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe(callback);
    expect(back.searchParams.get('state')).toBe('s2');
    const code = back.searchParams.get('code')!;
    expect((await exchange(code, 'https://elsewhere.example/cb')).status).toBe(401); // redirect_uri_mismatch
    const again = await fetch(await authorizeUrl(callback), { method: 'GET', redirect: 'manual' });
    expect(again.status).toBe(200); // still asks: only demo mode approves at once
  });

  it('Cancel sends access_denied; an unknown client is a 404', async () => {
    const url = new URL(await authorizeUrl(callback));
    const form = new URLSearchParams(url.searchParams);
    form.set('authorize', '0');
    const denied = await fetch(`${standIn.url}/login/oauth/authorize`, {
      method: 'POST',
      body: form,
      redirect: 'manual',
    });
    expect(new URL(denied.headers.get('location')!).searchParams.get('error')).toBe('access_denied');
    url.searchParams.set('client_id', 'someone-else');
    expect((await fetch(url, { redirect: 'manual' })).status).toBe(404);
  });

  it('in demo mode approves at once; the code works once', async () => {
    const demo = await startStandIn(0, { autoApprove: true });
    try {
      const url = new URL(await authorizeUrl(callback));
      const direct = await fetch(`${demo.url}${url.pathname}${url.search}`, { redirect: 'manual' });
      expect(direct.status).toBe(302);
      const code = new URL(direct.headers.get('location')!).searchParams.get('code')!;
      const demoApp = await testApp(
        createGitIssuesApp({
          apiUrl: demo.url,
          webUrl: demo.url,
          clientId: CLIENT.id,
          clientSecret: CLIENT.secret,
        }),
      );
      try {
        const first = await demoApp.post('/oauth2/v1/access_token', {
          fields: { callback_uri: callback },
          code,
        });
        expect(first.status).toBe(200);
        expect(first.body.access_token).toBe(TOKENS.good);
        const second = await demoApp.post('/oauth2/v1/access_token', {
          fields: { callback_uri: callback },
          code,
        });
        expect(second.status).toBe(401);
      } finally {
        await demoApp.close();
      }
    } finally {
      await demo.close();
    }
  });
});
