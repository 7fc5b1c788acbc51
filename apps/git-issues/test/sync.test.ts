// Syncing over real HTTP against recorded GitHub answers (cassettes/sync.json, recorded from the
// stand-in): Link-header paging, delta by `since`, the repository filter, rate limits, bad tokens.
import { signHmac } from '@weft/core';
import { type TestApp, useCassette } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ISSUES, TOKENS } from '../src/demo-github.js';
import { ACCOUNT, WEBHOOK_SECRET, accountFor, startApp } from './setup.js';

useCassette(new URL('./cassettes/sync.json', import.meta.url));

let app: TestApp;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ app, close } = await startApp({ pageSize: 40 }));
});
afterAll(() => close());

const widgets = ISSUES['octo-org/widgets']!;
const handbook = ISSUES['octo-org/handbook']!;

describe('git-issues: sync', () => {
  it('validates the OAuth account with GET /user', async () => {
    const answer = await app.validate('oauth2', ACCOUNT);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ name: 'mona', accountId: '583231' });
  });

  it('syncs repositories, and every issue across GitHub’s pages and the service’s', async () => {
    const repos = await app.sync('repository', { account: ACCOUNT });
    expect(repos.items.map((r) => r.id)).toEqual(['octo-org/widgets', 'octo-org/handbook']);
    expect(repos.items[1]).toMatchObject({
      name: 'octo-org/handbook',
      private: 'true',
      defaultBranch: 'main',
    });

    const issues = await app.sync('issue', { account: ACCOUNT });
    const expected = [...widgets, ...handbook].filter((i) => !('pull_request' in i)).map((i) => i.id);
    expect(issues.items.map((i) => i.id)).toEqual(expected);
    expect(issues.pages).toBe(Math.ceil(expected.length / 40));
    const first = issues.items[0]!;
    expect(first).toMatchObject({
      id: widgets[0]!.id,
      name: 'Fix widgets thing #1',
      number: 1,
      repository: 'octo-org/widgets',
      state: 'Open',
      author: 'mona',
      labels: ['enhancement'],
    });

    const pulls = await app.sync('pull_request', { account: ACCOUNT });
    expect(pulls.items).toHaveLength(33);
    const merged = pulls.items.find((p) => p.number === 12)!;
    expect(merged).toMatchObject({ state: 'Merged', draft: 'false' });
    expect(pulls.items.find((p) => p.number === 8)).toMatchObject({ state: 'Draft', draft: 'true' });
  });

  it('a delta sync asks GitHub for changes since the last sync (minus the margin)', async () => {
    const last = '2026-10-25T00:00:00.000Z';
    const delta = await app.sync('issue', { account: ACCOUNT, lastSynchronizedAt: last });
    expect(delta.synchronizationType).toBe('delta');
    const since = '2026-10-24T22:00:00.000Z';
    const expected = [...widgets, ...handbook]
      .filter((i) => !('pull_request' in i) && i.updated_at >= since.replace('.000', ''))
      .map((i) => i.id);
    expect(delta.items.map((i) => i.id)).toEqual(expected);
    expect(delta.items.every((i) => i.__syncAction === 'SET')).toBe(true);
  });

  it('filters by repository, with a datalist of the user’s repositories', async () => {
    const list = await app.datalist('repositories', { account: ACCOUNT });
    expect(list.body.items).toEqual([
      { title: 'octo-org/widgets', value: 'octo-org/widgets' },
      { title: 'octo-org/handbook', value: 'octo-org/handbook' },
    ]);
    const only = await app.sync('issue', {
      account: ACCOUNT,
      filter: { repositories: ['octo-org/handbook'] },
    });
    expect(only.items.map((i) => i.repository)).toEqual(Array(5).fill('octo-org/handbook'));
    const bad = await app.post('/api/v1/synchronizer/filter/validate', {
      account: ACCOUNT,
      filter: { repositories: ['someone/else'] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('Filter "repositories": no access to someone/else');
  });

  it('asks the service to try later when X-RateLimit-Remaining reaches 0', async () => {
    const page = await app.data('issue', { account: accountFor(TOKENS.limited) });
    expect(page.status).toBe(429);
    expect(page.body).toMatchObject({ tryLater: true });
    expect(page.body.message).toMatch(/rate limit is used up; it resets in \d+ seconds/);
    expect(Number(page.headers.get('retry-after'))).toBeGreaterThan(0);
    // The budget is spent: GitHub's 403 is a try-later too, not a bad account.
    const again = await app.data('repository', { account: accountFor(TOKENS.limited) });
    expect(again.status).toBe(429);
  });

  it('a revoked token is a 401 naming no secret', async () => {
    const page = await app.data('issue', { account: accountFor('gho_revoked') });
    expect(page.status).toBe(401);
    expect(JSON.stringify(page.body)).not.toContain('gho_revoked');
  });
});

describe('git-issues: webhooks', () => {
  const event = {
    action: 'edited',
    issue: { ...widgets[0]!, title: 'Fix widgets thing #1 (edited)' },
    repository: { id: 101, full_name: 'octo-org/widgets' },
    sender: { login: 'mona', id: 583231 },
  };
  const body = JSON.stringify(event);
  const headers = {
    'X-GitHub-Event': 'issues',
    'X-GitHub-Hook-ID': '7001',
    'X-Hub-Signature-256': signHmac({ secret: WEBHOOK_SECRET, rawBody: body, prefix: 'sha256=' }),
  };

  it('installs a repository hook with the service’s address and uninstalls it', async () => {
    const filter = { repositories: ['octo-org/widgets'] };
    const installed = await app.post('/api/v1/synchronizer/webhooks', {
      types: ['issue'],
      filter,
      account: ACCOUNT,
      webhook: null,
      url: 'https://service.example/hooks/abc',
    });
    expect(installed.status).toBe(200);
    expect(installed.body).toEqual({
      id: 'octo-org/widgets#7001',
      events: ['issues', 'pull_request'],
      workspaceId: 'octo-org/widgets',
    });
    const two = await app.post('/api/v1/synchronizer/webhooks', {
      types: ['issue'],
      filter: {},
      account: ACCOUNT,
      webhook: null,
      url: 'https://service.example/hooks/abc',
    });
    expect(two.status).toBe(400);
    const removed = await app.request('DELETE', '/api/v1/synchronizer/webhooks', {
      types: ['issue'],
      filter,
      account: ACCOUNT,
      webhook: { id: 'octo-org/widgets#7001' },
    });
    expect(removed.status).toBe(204);
  });

  it('verifies X-Hub-Signature-256 and names the hook; refuses a forged event', async () => {
    const ok = await app.post('/api/v1/synchronizer/webhooks/verify', { params: headers, payload: event });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ id: 'octo-org/widgets#7001' });
    const forged = await app.post('/api/v1/synchronizer/webhooks/verify', {
      params: headers,
      payload: { ...event, action: 'deleted' },
    });
    expect(forged.status).toBe(401);
    expect(forged.body.message).toBe('Webhook signature does not match the payload');
  });

  it('transforms issue and pull request events into rows', async () => {
    const set = await app.post('/api/v1/synchronizer/webhooks/transform', {
      params: headers,
      payload: event,
      types: ['issue'],
      filter: {},
      account: ACCOUNT,
    });
    expect(set.body.data.issue).toEqual([
      expect.objectContaining({
        id: widgets[0]!.id,
        name: 'Fix widgets thing #1 (edited)',
        __syncAction: 'SET',
      }),
    ]);
    const gone = await app.post('/api/v1/synchronizer/webhooks/transform', {
      params: headers,
      payload: { ...event, action: 'deleted' },
      types: ['issue'],
      filter: {},
      account: ACCOUNT,
    });
    expect(gone.body.data.issue).toEqual([{ id: widgets[0]!.id, __syncAction: 'REMOVE' }]);
    const pr = widgets[11]!;
    const merged = await app.post('/api/v1/synchronizer/webhooks/transform', {
      params: { 'x-github-event': 'pull_request' },
      payload: {
        action: 'closed',
        pull_request: { ...pr, merged_at: pr.updated_at },
        repository: { full_name: 'octo-org/widgets' },
      },
      types: ['pull_request'],
      filter: {},
      account: ACCOUNT,
    });
    expect(merged.body.data.pull_request).toEqual([
      expect.objectContaining({ id: pr.id, state: 'Merged', __syncAction: 'SET' }),
    ]);
  });

  it('pre-process checks the signature over the raw bytes and names the repository’s workspace', async () => {
    const raw = `${body}\n`;
    const signed = signHmac({ secret: WEBHOOK_SECRET, rawBody: raw, prefix: 'sha256=' });
    const pre = await fetch(`${app.url}/api/v1/synchronizer/webhooks/pre-process`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-hub-signature-256': signed,
        'x-github-event': 'issues',
      },
      body: raw,
    });
    expect(await pre.json()).toEqual({ reply: {}, workspaceIds: [JSON.parse(body).repository.full_name] });
    const unsigned = await fetch(`${app.url}/api/v1/synchronizer/webhooks/pre-process`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: raw,
    });
    expect(unsigned.status).toBe(401);
    expect(await unsigned.json()).toMatchObject({ message: 'Webhook signature is missing' });
  });
});
