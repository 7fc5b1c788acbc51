// The whole conformance kit against chat-notify, with a local stand-in for the chat service.
import { formatReport, runConformance } from '@weft/conformance';
import { type TestApp, testApp } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatNotifyApp } from '../src/app.js';
import { type ChatServer, startChatServer } from './chat-server.js';

let app: TestApp;
let chat: ChatServer;
beforeAll(async () => {
  app = await testApp(chatNotifyApp);
  chat = await startChatServer();
});
afterAll(async () => {
  await app.close();
  await chat.close();
});

describe('chat-notify: conformance kit', () => {
  it('passes every check, executing both actions against a local webhook', async () => {
    const report = await runConformance(app.url, {
      strict: true,
      account: { webhookUrl: `${chat.url}/hooks/conformance`, token: 'conformance-token' },
      actions: [
        { action: 'send-message', args: { text: 'Hello from the conformance kit', channel: '#tests' } },
        { action: 'send-alert', args: { title: 'Kit', severity: 'critical', details: 'just a test' } },
        { action: 'send-alert', args: { title: 'Kit', severity: 'apocalyptic' }, expect: 'failure' },
      ],
    });
    const failed = report.checks.filter((c) => c.status === 'fail');
    expect(failed, formatReport(report)).toEqual([]);
    expect(report.ok).toBe(true);
    // Both successful actions reached the chat service, with the account's token.
    const posts = chat.received.filter((r) => r.url === '/hooks/conformance');
    expect(posts.map((r) => r.json)).toEqual([
      { text: 'Hello from the conformance kit', channel: '#tests' },
      { text: ':rotating_light: *[CRITICAL] Kit*\njust a test' },
    ]);
    expect(posts.every((r) => r.headers.authorization === 'Bearer conformance-token')).toBe(true);
  }, 120_000);
});
