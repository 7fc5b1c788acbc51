import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConformanceError, conformanceSuite, expectConformant } from '../src/vitest.js';
import { ACCOUNT, ACTIONS_FIXTURE, type ReferenceApp, startReferenceApp } from './fixtures/reference-app.js';

let app: ReferenceApp;
beforeAll(async () => {
  app = await startReferenceApp();
});
afterAll(async () => {
  await app.close();
});

// The one-line use in an app's own suite: `setup` runs when the test runs, after beforeAll.
conformanceSuite('reference app through conformanceSuite', () => ({
  url: app.url,
  account: ACCOUNT,
  actions: ACTIONS_FIXTURE,
}));

// The options reach the kit: strict, with a given lastSynchronizedAt.
conformanceSuite('reference app through conformanceSuite, strict', () => ({
  url: app.url,
  account: ACCOUNT,
  actions: ACTIONS_FIXTURE,
  strict: true,
  lastSynchronizedAt: '2026-01-01T00:00:00Z',
}));

describe('expectConformant', () => {
  it('with strict, rejects when a check only warns', async () => {
    const warning = await startReferenceApp({ fault: 'logo-missing' });
    try {
      const lenient = await expectConformant(warning.url, { account: ACCOUNT, actions: ACTIONS_FIXTURE });
      expect(lenient.summary.warned).toBe(1);
      const error = await expectConformant(warning.url, {
        account: ACCOUNT,
        actions: ACTIONS_FIXTURE,
        strict: true,
      }).catch((e) => e);
      expect(error).toBeInstanceOf(ConformanceError);
      expect(error.message).toContain('the app does not conform (0 failed, 1 warned; strict)');
      expect(error.message).toContain('WARN logo.response');
    } finally {
      await warning.close();
    }
  });

  it('resolves with the report when no check fails', async () => {
    const report = await expectConformant(app.url, { account: ACCOUNT, actions: ACTIONS_FIXTURE });
    expect(report.ok).toBe(true);
  });

  it('rejects with the formatted report when a check fails', async () => {
    const broken = await startReferenceApp({ fault: 'schema-unknown-field-type' });
    try {
      const error = await expectConformant(broken.url, { account: ACCOUNT, actions: ACTIONS_FIXTURE }).catch(
        (e) => e,
      );
      expect(error).toBeInstanceOf(ConformanceError);
      expect(error.message).toContain('the app does not conform (1 failed)');
      expect(error.message).toContain('FAIL schema.field');
      expect(error.message).toContain('schema.user.email: unknown field type "email-address"');
      expect((error as ConformanceError).report.ok).toBe(false);
    } finally {
      await broken.close();
    }
  });
});
