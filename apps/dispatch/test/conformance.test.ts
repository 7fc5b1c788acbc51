// The whole conformance kit against dispatch: on its embedded default (e-mails logged) and with
// a token, executing both actions against local receivers.
import { formatReport, runConformance } from '@weft/conformance';
import { type TestApp, testApp } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDispatchApp } from '../src/app.js';
import { type HttpReceiver, startHttpReceiver } from './http-receiver.js';
import { type SmtpSink, startSmtpSink } from './smtp-sink.js';

let receiver: HttpReceiver;
let smtp: SmtpSink;
beforeAll(async () => {
  receiver = await startHttpReceiver();
  smtp = await startSmtpSink();
});
afterAll(async () => {
  await receiver.close();
  await smtp.close();
});

const actions = () => [
  { action: 'send-email', args: { to: 'ops@example.com', subject: 'Conformance', body: 'Hello' } },
  {
    action: 'send-email',
    args: { to: 'not-an-address', subject: 'x', body: 'x' },
    expect: 'failure' as const,
  },
  { action: 'http-request', args: { method: 'POST', url: `${receiver.url}/kit`, body: '{"ok":true}' } },
  { action: 'http-request', args: { url: 'ftp://example.com/' }, expect: 'failure' as const },
];

describe('dispatch: conformance kit', () => {
  it('passes every check on the embedded default', async () => {
    const app: TestApp = await testApp(createDispatchApp({ allowPrivateNetworks: true }));
    try {
      const report = await runConformance(app.url, { strict: true, actions: actions() });
      expect(
        report.checks.filter((c) => c.status === 'fail'),
        formatReport(report),
      ).toEqual([]);
      expect(report.ok).toBe(true);
      expect(receiver.received.filter((r) => r.url === '/kit').map((r) => r.body)).toEqual(['{"ok":true}']);
    } finally {
      await app.close();
    }
  }, 60_000);

  it('passes every check with a token and SMTP', async () => {
    const token = 'conformance-token-0123456789';
    const app: TestApp = await testApp(
      createDispatchApp({ allowPrivateNetworks: true, token, smtpUrl: smtp.url() }),
    );
    try {
      const report = await runConformance(app.url, { strict: true, account: { token }, actions: actions() });
      expect(
        report.checks.filter((c) => c.status === 'fail'),
        formatReport(report),
      ).toEqual([]);
      expect(report.ok).toBe(true);
      expect(smtp.delivered.map((m) => m.to)).toEqual([['ops@example.com']]);
    } finally {
      await app.close();
    }
  }, 60_000);
});
