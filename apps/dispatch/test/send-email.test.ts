// send-email over real HTTP, delivered to a real local SMTP server.
import type { Logger } from '@weft/core';
import { type TestApp, testApp } from '@weft/core/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDispatchApp } from '../src/app.js';
import { SMTP_PASSWORD, type SmtpSink, startSmtpSink } from './smtp-sink.js';

/** Every log line, to prove that no secret is ever logged. */
const lines: string[] = [];
const logger: Logger = {
  info: (fields, message) => lines.push(JSON.stringify({ message, ...fields })),
  warn: (fields, message) => lines.push(JSON.stringify({ message, ...fields })),
  error: (fields, message) => lines.push(JSON.stringify({ message, ...fields })),
};

const FROM = 'Ops robot <robot@weft.example>';
let smtp: SmtpSink;
let app: TestApp;

beforeAll(async () => {
  smtp = await startSmtpSink();
  app = await testApp(createDispatchApp({ smtpUrl: smtp.url(), mailFrom: FROM, smtpTimeoutMs: 2_000 }), {
    logger,
  });
});
afterAll(async () => {
  await app.close();
  await smtp.close();
  // Nothing the app said, in any test of this file, holds the SMTP password.
  expect(lines.join('\n')).not.toContain(SMTP_PASSWORD);
});
afterEach(() => {
  smtp.delivered.length = 0;
});

describe('dispatch: send-email over SMTP', () => {
  it('delivers the message, logged in, with every header and the body', async () => {
    const { status, body } = await app.execute('send-email', {
      to: 'ana@example.com, ben@example.org',
      cc: 'team@example.net',
      replyTo: 'help@weft.example',
      subject: 'Deploy finished',
      body: 'The deploy of weft 1.2 finished at 10:42.\nNo errors.',
    });
    expect(status).toBe(200);
    expect(body).toEqual({});
    expect(smtp.delivered).toHaveLength(1);
    const [mail] = smtp.delivered;
    expect(mail!.user).toBe('mailer');
    expect(mail!.from).toBe('robot@weft.example');
    expect(mail!.to).toEqual(['ana@example.com', 'ben@example.org', 'team@example.net']);
    expect(mail!.raw).toMatch(/^From: Ops robot <robot@weft\.example>\r$/m);
    expect(mail!.raw).toMatch(/^To: ana@example\.com, ben@example\.org\r$/m);
    expect(mail!.raw).toMatch(/^Cc: team@example\.net\r$/m);
    expect(mail!.raw).toMatch(/^Reply-To: help@weft\.example\r$/m);
    expect(mail!.raw).toMatch(/^Subject: Deploy finished\r$/m);
    expect(mail!.raw).toContain('The deploy of weft 1.2 finished at 10:42.\r\nNo errors.');
  });

  it('keeps a templated subject on one line and encodes non-ASCII text', async () => {
    const { status } = await app.execute('send-email', {
      to: 'ana@example.com',
      subject: 'Neue Bestellung:\r\nBcc: evil@example.com Größe M',
      body: 'Grüße aus München',
    });
    expect(status).toBe(200);
    const raw = smtp.delivered[0]!.raw;
    expect(smtp.delivered[0]!.to).toEqual(['ana@example.com']);
    expect(raw).not.toMatch(/^Bcc:/m);
    expect(raw).toMatch(/^Subject: =\?UTF-8\?Q\?Neue_Bestellung/m);
    expect(raw).toMatch(/Gr=C3=BC=C3=9Fe aus M=C3=BCnchen|R3LDvMOfZSBhdXMgTcO8bmNoZW4/);
  });

  it.each([
    [{ to: 'not an address', subject: 's', body: 'b' }, /"To": "not an address" is not an e-mail address/],
    [{ to: ' , ', subject: 's', body: 'b' }, /"To" names no address/],
    [{ to: 'a@example.com', cc: 'x@y', subject: 's', body: 'b' }, /"Cc": "x@y" is not an e-mail address/],
    [
      { to: 'a@example.com', replyTo: 'a@example.com, b@example.com', subject: 's', body: 'b' },
      /one address/,
    ],
    [{ to: 'a@example.com', subject: ' \n ', body: 'b' }, /subject is empty/],
    [
      { to: Array.from({ length: 51 }, (_, i) => `u${i}@example.com`).join(','), subject: 's', body: 'b' },
      /At most 50 recipients/,
    ],
  ])('answers 400 {message} for bad arguments, sending nothing: %j', async (args, message) => {
    const { status, body } = await app.execute('send-email', args);
    expect(status).toBe(400);
    expect(body).toEqual({ message: expect.stringMatching(message) });
    expect(smtp.delivered).toHaveLength(0);
  });

  it('answers 400 when the mail server refuses a recipient', async () => {
    const { status, body } = await app.execute('send-email', {
      to: 'nobody@refused.example',
      subject: 'x',
      body: 'x',
    });
    expect(status).toBe(400);
    expect(body.message).toMatch(/^The mail server refused the message: .*550/);
    expect(body.tryLater).toBeUndefined();
  });

  it('answers tryLater when the mail server defers', async () => {
    const { status, body } = await app.execute('send-email', {
      to: 'a@busy.example',
      subject: 'x',
      body: 'x',
    });
    expect(status).toBe(503);
    expect(body).toEqual({ message: expect.stringMatching(/deferred the message: .*451/), tryLater: true });
  });

  it('answers 502 without the password when the server refuses the app’s login', async () => {
    const wrong = await testApp(
      createDispatchApp({ smtpUrl: smtp.url('mailer', 'wrong-s3cret-guess'), smtpTimeoutMs: 2_000 }),
      { logger },
    );
    try {
      const { status, body } = await wrong.execute('send-email', {
        to: 'a@example.com',
        subject: 'x',
        body: 'x',
      });
      expect(status).toBe(502);
      expect(body).toEqual({ message: 'The mail server refused the app’s SMTP credentials' });
      expect(smtp.delivered).toHaveLength(0);
      expect(lines.join('\n')).not.toContain('wrong-s3cret-guess');
    } finally {
      await wrong.close();
    }
  });

  it('answers tryLater when the mail server cannot be reached', async () => {
    const gone = await startSmtpSink();
    const url = gone.url();
    await gone.close();
    const down = await testApp(createDispatchApp({ smtpUrl: url, smtpTimeoutMs: 2_000 }), { logger });
    try {
      const { status, body } = await down.execute('send-email', {
        to: 'a@example.com',
        subject: 'x',
        body: 'x',
      });
      expect(status).toBe(503);
      expect(body.tryLater).toBe(true);
      expect(body.message).toMatch(/could not be reached/);
      expect(body.message).not.toContain(SMTP_PASSWORD);
    } finally {
      await down.close();
    }
  });
});

describe('dispatch: send-email without SMTP_URL (embedded default)', () => {
  it('builds the message and logs who would receive it, sending nothing', async () => {
    const logged: Record<string, unknown>[] = [];
    const quiet = await testApp(createDispatchApp(), {
      logger: { ...logger, info: (fields, message) => logged.push({ message, ...fields }) },
    });
    try {
      const { status, body } = await quiet.execute('send-email', {
        to: 'ana@example.com',
        subject: 'Hello',
        body: 'Hi',
      });
      expect(status).toBe(200);
      expect(body).toEqual({});
      expect(logged).toContainEqual(
        expect.objectContaining({
          message: expect.stringMatching(/not sent \(no SMTP_URL\)/),
          transport: 'log',
          to: ['ana@example.com'],
          subject: 'Hello',
          messageId: expect.stringMatching(/^<.+@.+>$/),
        }),
      );
      expect(smtp.delivered).toHaveLength(0);
    } finally {
      await quiet.close();
    }
  });
});
