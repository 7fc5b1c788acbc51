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
