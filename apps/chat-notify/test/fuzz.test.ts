// Attack test in CI: 4,000 generated hostile requests over every endpoint (fixed seed). The
// accounts point at a local stand-in for the chat service: fuzzing never calls the internet.
import { fuzzApp } from '@weft/core/testing';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createChatNotifyApp } from '../src/app.js';
import { type ChatServer, startChatServer } from './chat-server.js';

let chat: ChatServer;
beforeAll(async () => {
  chat = await startChatServer();
});
afterAll(() => chat.close());

test('chat-notify survives 4,000 hostile requests: JSON answers, no 5xx, no hang', async () => {
  const report = await fuzzApp(createChatNotifyApp({ backoffMs: 1 }), {
    runs: 4_000,
    socketRuns: 100,
    seed: 20261122,
    accounts: [
      { webhookUrl: `${chat.url}/hooks/T1/B2/fuzzSecret` },
      { webhookUrl: `${chat.url}/x`, token: 'tok-fuzz-1' },
    ],
  });
  expect(report.cases).toBe(4_000);
  // Keep the stand-in's memory flat across thousands of posts.
  chat.received.length = 0;
}, 120_000);
