// The webhook URL is the credential: whatever the chat service echoes of it (the whole path,
// its last segment, URL-encoded), neither the answer to the service nor a log line carries it.
import { jsonLogger } from '@weft/core';
import { type TestApp, testApp } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatNotifyApp } from '../src/app.js';
import { type ChatServer, startChatServer } from './chat-server.js';

const HOOK_PATH = '/services/T0A1/B0B2/zzHookSecretTail42';
const lines: string[] = [];
let app: TestApp;
let chat: ChatServer;

beforeAll(async () => {
  app = await testApp(createChatNotifyApp({ backoffMs: 1 }), { logger: jsonLogger((l) => lines.push(l)) });
  chat = await startChatServer();
});
afterAll(async () => {
  await app.close();
  await chat.close();
});

describe('chat-notify never echoes its secret webhook address', () => {
  it.each([
    ['the last path segment', 'no_service: zzHookSecretTail42'],
    ['the whole path', `unknown webhook ${HOOK_PATH}`],
    ['the URL-encoded path', `unknown webhook ${encodeURIComponent(HOOK_PATH)}`],
  ])('when the chat service names %s', async (_what, echo) => {
    chat.replies.push({ status: 404, body: echo });
    lines.length = 0;
    const res = await app.execute('send-message', { text: 'hi' }, { webhookUrl: `${chat.url}${HOOK_PATH}` });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('refused');
    const seen = JSON.stringify(res.body) + lines.join('');
    expect(seen).not.toContain('zzHookSecretTail42');
  });
  it('when a rate limit is retried, the retry warning keeps the path out of the log', async () => {
    chat.replies.push({ status: 429, headers: { 'retry-after': '0' } });
    lines.length = 0;
    const res = await app.execute('send-message', { text: 'hi' }, { webhookUrl: `${chat.url}${HOOK_PATH}` });
    expect(res.status).toBe(200);
    expect(lines.join('')).toContain('Retrying');
    expect(lines.join('')).not.toContain('zzHookSecretTail42');
  });
});
