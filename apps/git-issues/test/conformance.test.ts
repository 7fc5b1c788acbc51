// The whole conformance kit against the app, replaying GitHub's answers (cassettes/conformance.json).
import { expectConformant } from '@weft/conformance/vitest';
import { type TestApp, useCassette } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT, startApp } from './setup.js';
import { type StandIn, startStandIn } from '../src/demo-github.js';

useCassette(new URL('./cassettes/conformance.json', import.meta.url));

let app: TestApp;
let close: () => Promise<void>;
let oauth: StandIn;
beforeAll(async () => {
  // The kit's invalid account makes core try a token refresh, which goes to the OAuth endpoint
  // live (core's OAuth client is not recorded): a stand-in answers it, and refuses.
  oauth = await startStandIn(0);
  ({ app, close } = await startApp({ webUrl: oauth.url }));
});
afterAll(async () => {
  await close();
  await oauth.close();
});

describe('git-issues: conformance kit', () => {
  it('passes every check without a warning', async () => {
    const report = await expectConformant(app.url, {
      account: ACCOUNT,
      filter: { repositories: ['octo-org/handbook'] },
      // A fixed clock: the delta sync's `since`, and so the recorded requests, stay the same.
      now: '2026-10-02T12:00:00',
      strict: true,
    });
    expect(report.summary.warned, JSON.stringify(report.checks.filter((c) => c.status === 'warn'))).toBe(0);
    expect(report.sync.issue?.count).toBe(5);
    expect(report.sync.pull_request?.count).toBe(1);
    expect(report.sync.issue?.relationCoverage.repository).toEqual({ total: 5, resolved: 5 });
  }, 120_000);
});
