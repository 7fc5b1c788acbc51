// The app against a local stand-in for the chat's incoming webhook: a real HTTP server.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expectConformant } from '@weft/conformance/vitest';
import { type TestApp, testApp } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { app } from '../src/app.js';

const received: unknown[] = [];
let chat: Server;
let webhookUrl: string;
let running: TestApp;

beforeAll(async () => {
  chat = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    req.on('end', () => {
      if (req.url !== '/hooks/abc') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"no such webhook"}');
        return;
      }
      received.push(JSON.parse(body));
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => chat.listen(0, '127.0.0.1', resolve));
  webhookUrl = `http://127.0.0.1:${(chat.address() as AddressInfo).port}/hooks/abc`;
  running = await testApp(app);
});
afterAll(async () => {
  await running.close();
  chat.closeAllConnections();
  await new Promise((resolve) => chat.close(resolve));
});

describe('notify app', () => {
  it('posts the message to the webhook', async () => {
    const answer = await running.execute(
      'send-message',
      { text: 'Deploy done', urgent: 'yes' },
      { webhookUrl },
    );
    expect(answer.status).toBe(200);
    expect(received.at(-1)).toEqual({ text: '🚨 Deploy done' });
  });

  it('reports a removed webhook as a failed action', async () => {
    const answer = await running.execute(
      'send-message',
      { text: 'Hi' },
      { webhookUrl: `${webhookUrl}-gone` },
    );
    expect(answer.status).toBe(400);
    expect(answer.body.message).toMatch(/404/);
  });

  it('passes the conformance kit, running the action', async () => {
    await expectConformant(running.url, {
      account: { webhookUrl },
      actions: [
        { action: 'send-message', args: { text: 'Hello from the kit' } },
        { action: 'send-message', args: { text: ' ' }, expect: 'failure' },
      ],
    });
    expect(received).toContainEqual({ text: 'Hello from the kit' });
  }, 60_000);
});
