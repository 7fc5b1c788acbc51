// The chat-notify app over real HTTP, against a local stand-in for the chat service.
import { type TestApp, testApp } from '@weft/core/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chatNotifyApp, createChatNotifyApp } from '../src/app.js';
import { type ChatServer, startChatServer } from './chat-server.js';

const TOKEN = 'xoxb-test-token-123';
const HOOK_PATH = '/hooks/T000/B000/s3cretHookKey';

let app: TestApp;
let chat: ChatServer;
let account: { webhookUrl: string; token: string };

beforeAll(async () => {
  // Fast backoff: only 429s are retried for these POSTs.
  app = await testApp(createChatNotifyApp({ backoffMs: 1 }));
  chat = await startChatServer();
  account = { webhookUrl: `${chat.url}${HOOK_PATH}`, token: TOKEN };
});
afterAll(async () => {
  await app.close();
  await chat.close();
});
afterEach(() => {
  chat.received.length = 0;
  chat.replies.length = 0;
});

describe('chat-notify: descriptor', () => {
  it('describes an external-action app with a webhook account and two actions', async () => {
    const standalone = await testApp(chatNotifyApp);
    try {
      const { status, body } = await standalone.descriptor();
      expect(status).toBe(200);
      expect(body).toMatchObject({
        id: 'chat-notify',
        sources: [],
        responsibleFor: { automations: true },
      });
      expect(body.authentication).toEqual([
        {
          id: 'webhook',
          name: 'Incoming webhook',
          description: expect.any(String),
          fields: [
            {
              id: 'webhookUrl',
              name: 'Webhook URL',
              type: 'text',
              description: expect.any(String),
              optional: false,
            },
            { id: 'token', name: 'Token', type: 'password', description: expect.any(String), optional: true },
            {
              id: 'help',
              name: 'How to create an incoming webhook',
              type: 'link',
              description: '',
              optional: false,
              value: 'https://api.slack.com/messaging/webhooks',
            },
          ],
        },
      ]);
      expect(body.actions.map((a: { action: string }) => a.action)).toEqual(['send-message', 'send-alert']);
      const [message, alert] = body.actions;
      expect(message.args).toEqual([
        {
          id: 'text',
          name: 'Message',
          description: expect.any(String),
          type: 'textarea',
          textTemplateSupported: true,
        },
        { id: 'channel', name: 'Channel', description: expect.any(String), type: 'text' },
      ]);
      expect(alert.args.map((a: { id: string; type: string }) => `${a.id}:${a.type}`)).toEqual([
        'title:text',
        'severity:text',
        'details:textarea',
      ]);
    } finally {
      await standalone.close();
    }
  });
});

describe('chat-notify: /validate', () => {
  it('accepts an http(s) webhook URL without calling it', async () => {
    const { status, body } = await app.validate('webhook', account);
    expect(status).toBe(200);
    expect(body).toEqual({ name: `Chat webhook ${new URL(chat.url).host}` });
    const noToken = await app.validate('webhook', { webhookUrl: 'https://hooks.slack.com/services/T/B/x' });
    expect(noToken.body).toEqual({ name: 'Chat webhook hooks.slack.com' });
    expect(chat.received).toHaveLength(0);
  });

  it.each([
    ['not a url', /not a valid URL/],
    ['ftp://files.example.com/hook', /http or https, not ftp/],
    ['javascript:alert(1)', /http or https/],
    ['https://user:pw@hooks.example.com/x', /must not contain a user name/],
  ])('answers 401 {message} for %j', async (webhookUrl, message) => {
    const { status, body } = await app.validate('webhook', { webhookUrl });
    expect(status).toBe(401);
    expect(body).toEqual({ message: expect.stringMatching(message) });
  });

  it('answers 401 when the webhook URL is missing', async () => {
    const { status, body } = await app.validate('webhook', {});
    expect(status).toBe(401);
    expect(typeof body.message).toBe('string');
  });
});

describe('chat-notify: send-message', () => {
  it('posts {text, channel} as JSON to the exact webhook URL with the bearer token', async () => {
    const { status, body } = await app.execute(
      'send-message',
      { text: 'Deploy of *weft* finished', channel: '#ops' },
      account,
    );
    expect(status).toBe(200);
    expect(body).toEqual({});
    expect(chat.received).toHaveLength(1);
    const [request] = chat.received;
    expect(request!.method).toBe('POST');
    expect(request!.url).toBe(HOOK_PATH);
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(request!.json).toEqual({ text: 'Deploy of *weft* finished', channel: '#ops' });
  });

  it('sends no Authorization header without a token, and keeps the URL query', async () => {
    const { status } = await app.execute(
      'send-message',
      { text: 'hello' },
      { webhookUrl: `${chat.url}/hooks/abc?wait=true` },
    );
    expect(status).toBe(200);
    expect(chat.received[0]!.url).toBe('/hooks/abc?wait=true');
    expect(chat.received[0]!.headers.authorization).toBeUndefined();
    expect(chat.received[0]!.json).toEqual({ text: 'hello' });
  });

  it('does not retry a POST after an upstream 500: tryLater error, one request, and a re-run succeeds', async () => {
    chat.replies.push({ status: 500, body: 'internal error' }, { status: 200, body: 'ok' });
    const failed = await app.execute('send-message', { text: 'once' }, account);
    expect(failed.status).toBe(503);
    expect(failed.body).toEqual({ message: expect.stringMatching(/answered 500/), tryLater: true });
    expect(chat.received).toHaveLength(1);

    const again = await app.execute('send-message', { text: 'once' }, account);
    expect(again.status).toBe(200);
    expect(chat.received).toHaveLength(2);
  });

  it('retries a 429 after its Retry-After (the message was not processed)', async () => {
    chat.replies.push({ status: 429, body: 'rate limited', headers: { 'retry-after': '0' } });
    const { status } = await app.execute('send-message', { text: 'later' }, account);
    expect(status).toBe(200);
    expect(chat.received).toHaveLength(2);
  });

  it('turns an upstream 4xx into an action failure with a clear message and no webhook secret', async () => {
    chat.replies.push({ status: 404, body: 'no_service' });
    const { status, body } = await app.execute('send-message', { text: 'x' }, account);
    expect(status).toBe(400);
    expect(body.message).toMatch(/^The chat service refused the message: .*answered 404: no_service/);
    expect(body.message).not.toContain('s3cretHookKey');
    expect(body.tryLater).toBeUndefined();
  });

  it('answers 401 when the chat service refuses the token, without echoing it', async () => {
    chat.replies.push({ status: 403, body: `invalid token ${TOKEN}` });
    const { status, body } = await app.execute('send-message', { text: 'x' }, account);
    expect(status).toBe(401);
    expect(body.message).toMatch(/refused the credentials \(403\)/);
    expect(body.message).not.toContain(TOKEN);
  });

  it('answers tryLater when the chat service cannot be reached', async () => {
    const gone = await startChatServer();
    await gone.close();
    const { status, body } = await app.execute(
      'send-message',
      { text: 'x' },
      { webhookUrl: `${gone.url}/hook` },
    );
    expect(status).toBe(503);
    expect(body.tryLater).toBe(true);
  });

  it('answers 401 for an account whose URL is not http(s), before any call', async () => {
    const { status, body } = await app.execute(
      'send-message',
      { text: 'x' },
      { webhookUrl: 'file:///etc/passwd' },
    );
    expect(status).toBe(401);
    expect(typeof body.message).toBe('string');
  });
});

describe('chat-notify: send-alert', () => {
  it('posts a formatted alert', async () => {
    const { status } = await app.execute(
      'send-alert',
      { title: 'Disk almost full', severity: 'Warning', details: 'db-1 is at 93%' },
      account,
    );
    expect(status).toBe(200);
    expect(chat.received[0]!.json).toEqual({
      text: ':warning: *[WARNING] Disk almost full*\ndb-1 is at 93%',
    });
  });

  it('leaves out empty details', async () => {
    await app.execute('send-alert', { title: 'All good', severity: 'info' }, account);
    expect(chat.received[0]!.json).toEqual({ text: ':information_source: *[INFO] All good*' });
  });

  it('answers 400 for a severity outside info|warning|critical, without posting', async () => {
    const { status, body } = await app.execute('send-alert', { title: 'x', severity: 'urgent' }, account);
    expect(status).toBe(400);
    expect(body).toEqual({ message: 'Severity "urgent" is not one of info, warning, critical' });
    expect(chat.received).toHaveLength(0);
  });
});

describe('chat-notify: request errors', () => {
  it('answers 404 for an unknown action', async () => {
    const { status, body } = await app.execute('send-fax', { text: 'x' }, account);
    expect(status).toBe(404);
    expect(body.message).toMatch(/send-fax/);
  });

  it('answers 400 for a missing required argument', async () => {
    const { status, body } = await app.execute('send-message', { channel: '#ops' }, account);
    expect(status).toBe(400);
    expect(body.message).toMatch(/"text"/);
    expect(chat.received).toHaveLength(0);
  });
});
