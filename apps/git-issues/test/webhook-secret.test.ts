// Without a webhook secret the app must refuse every event: an event signed with the empty key
// (which anyone can compute) was accepted before.
import { signHmac } from '@weft/core';
import { testApp } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGitIssuesApp } from '../src/app.js';
import { CLIENT, STAND_IN_URL } from '../src/demo-github.js';

describe('git-issues: no webhook secret', () => {
  let app: Awaited<ReturnType<typeof testApp>>;
  beforeAll(async () => {
    app = await testApp(
      createGitIssuesApp({
        apiUrl: STAND_IN_URL,
        webUrl: STAND_IN_URL,
        clientId: CLIENT.id,
        clientSecret: CLIENT.secret,
        webhookSecret: '',
      }),
    );
  });
  afterAll(() => app.close());

  it('refuses an event signed with the empty key', async () => {
    const raw = JSON.stringify({ action: 'opened', sender: { id: 1 }, repository: { full_name: 'a/b' } });
    const forged = createForgery(raw);
    const pre = await fetch(`${app.url}/api/v1/synchronizer/webhooks/pre-process`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-hub-signature-256': forged,
        'x-github-event': 'issues',
      },
      body: raw,
    });
    expect(pre.status).toBe(401);
    expect(await pre.json()).toMatchObject({
      message: 'Webhook secret is not configured: every event is refused',
    });
  });
});

function createForgery(raw: string): string {
  // signHmac itself still signs with any key: it is how a forger would.
  return signHmac({ secret: Buffer.alloc(0), rawBody: raw, prefix: 'sha256=' });
}
