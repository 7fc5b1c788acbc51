// http-request over real HTTP, against a local receiver, and the guard against internal addresses.
import { jsonLogger } from '@weft/core';
import { type TestApp, testApp } from '@weft/core/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isInternalAddress } from '../src/address-guard.js';
import { createDispatchApp, DISPATCH_ROUTER_OPTIONS } from '../src/app.js';
import { type HttpReceiver, startHttpReceiver } from './http-receiver.js';

let receiver: HttpReceiver;
/** Allowed to reach internal addresses, as a deployment on a private network may be: the receiver is on 127.0.0.1. */
let app: TestApp;
/** The default: internal addresses refused. */
let guarded: TestApp;

beforeAll(async () => {
  receiver = await startHttpReceiver();
  app = await testApp(
    createDispatchApp({ allowPrivateNetworks: true, httpTimeoutMs: 1_000 }),
    DISPATCH_ROUTER_OPTIONS,
  );
  guarded = await testApp(createDispatchApp());
});
afterAll(async () => {
  await app.close();
  await guarded.close();
  await receiver.close();
});
afterEach(() => {
  receiver.received.length = 0;
  receiver.replies.length = 0;
});

describe('dispatch: http-request', () => {
  it('sends the method, URL, headers and a JSON body as given', async () => {
    const { status, body } = await app.execute('http-request', {
      method: 'post',
      url: `${receiver.url}/hooks/orders?source=weft`,
      headers: 'Authorization: Bearer tok-123456\nX-Trace: a\n\nX-Trace: b',
      body: '{"order": 42, "state": "paid"}',
    });
    expect(status).toBe(200);
    expect(body).toEqual({});
    expect(receiver.received).toHaveLength(1);
    const [request] = receiver.received;
    expect(request).toMatchObject({ method: 'POST', url: '/hooks/orders?source=weft' });
    expect(request!.headers).toMatchObject({
      authorization: 'Bearer tok-123456',
      'x-trace': 'a, b',
      'content-type': 'application/json',
      'user-agent': 'weft-dispatch/1.0',
    });
    expect(JSON.parse(request!.body)).toEqual({ order: 42, state: 'paid' });
  });

  it('defaults to GET, sends text bodies as text, and keeps a given content type', async () => {
    expect((await app.execute('http-request', { url: `${receiver.url}/ping` })).status).toBe(200);
    expect(receiver.received[0]).toMatchObject({ method: 'GET', url: '/ping', body: '' });
    await app.execute('http-request', { method: 'PUT', url: `${receiver.url}/t`, body: 'plain words' });
    expect(receiver.received[1]!.headers['content-type']).toBe('text/plain; charset=utf-8');
    await app.execute('http-request', {
      method: 'PATCH',
      url: `${receiver.url}/t`,
      headers: 'Content-Type: application/x-www-form-urlencoded',
      body: 'a=1&b=2',
    });
    expect(receiver.received[2]).toMatchObject({ method: 'PATCH', body: 'a=1&b=2' });
    expect(receiver.received[2]!.headers['content-type']).toBe('application/x-www-form-urlencoded');
  });

  it('fails with 400 {message} on a 4xx, naming the origin only and redacting echoed header values', async () => {
    receiver.replies.push({ status: 404, body: 'no such hook for key tok-secret-99' });
    const { status, body } = await app.execute('http-request', {
      method: 'POST',
      url: `${receiver.url}/hooks/s3cret-path?key=abc`,
      headers: 'X-Api-Key: tok-secret-99',
      body: 'x',
    });
    expect(status).toBe(400);
    expect(body).toEqual({ message: `POST ${receiver.url} answered 404: no such hook for key [redacted]` });
  });

  it('answers tryLater on a 5xx without sending the request twice', async () => {
    receiver.replies.push({ status: 500, body: 'boom' });
    const { status, body } = await app.execute('http-request', {
      method: 'POST',
      url: receiver.url,
      body: 'x',
    });
    expect(status).toBe(503);
    expect(body).toEqual({ message: `POST ${receiver.url} answered 500: boom`, tryLater: true });
    expect(receiver.received).toHaveLength(1);
  });

  it('passes a 429 on as tryLater with its Retry-After', async () => {
    receiver.replies.push({ status: 429, body: 'slow down', headers: { 'retry-after': '30' } });
    const res = await app.execute('http-request', { url: receiver.url });
    expect(res.status).toBe(429);
    expect(res.body.tryLater).toBe(true);
    expect(res.headers.get('retry-after')).toBe('30');
  });

  it('does not follow redirects', async () => {
    receiver.replies.push({ status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data' } });
    const { status, body } = await app.execute('http-request', { url: receiver.url });
    expect(status).toBe(400);
    expect(body.message).toMatch(/answered 302; redirects are not followed/);
    expect(receiver.received).toHaveLength(1);
  });

  it('answers tryLater (504) when the receiver does not answer in time', async () => {
    receiver.replies.push({ status: 200, hang: true });
    const { status, body } = await app.execute('http-request', { url: receiver.url });
    expect(status).toBe(504);
    expect(body).toEqual({ message: `GET ${receiver.url} did not answer within 1 s`, tryLater: true });
  });

  it('answers tryLater when nothing listens', async () => {
    const gone = await startHttpReceiver();
    await gone.close();
    const { status, body } = await app.execute('http-request', { url: gone.url });
    expect(status).toBe(503);
    expect(body).toEqual({
      message: expect.stringMatching(/could not be reached \(ECONNREFUSED\)/),
      tryLater: true,
    });
  });

  it.each([
    [{ method: 'TRACE', url: 'http://example.com' }, /Method "TRACE" is not one of GET, HEAD, POST/],
    [{ url: 'example.com/x' }, /not a valid absolute URL/],
    [{ url: 'ftp://example.com/x' }, /must use http or https, not ftp/],
    [{ url: 'file:///etc/passwd' }, /must use http or https, not file/],
    [{ url: 'https://user:pw@example.com/' }, /must not contain a user name or password/],
    [{ url: 'https://example.com', headers: 'Host: internal.example' }, /Header "Host" is set by the app/],
    [{ url: 'https://example.com', headers: 'Transfer-Encoding: chunked' }, /is set by the app/],
    [{ url: 'https://example.com', headers: 'no colon here' }, /is not "Name: value"/],
    [{ url: 'https://example.com', headers: 'Bad Name: x' }, /is not "Name: value"/],
    [{ url: 'https://example.com', body: 'x' }, /A GET request cannot have a body/],
    [
      { method: 'POST', url: 'https://example.com', body: 'x'.repeat(1024 * 1024 + 1) },
      /larger than 1024 KB/,
    ],
  ])('answers 400 {message} before any connection for %j', async (args, message) => {
    const { status, body } = await app.execute('http-request', args);
    expect(status).toBe(400);
    expect(body).toEqual({ message: expect.stringMatching(message) });
  });

  it('never echoes a malformed header line (it may hold a secret) in its answer or its log', async () => {
    const lines: string[] = [];
    const logger = jsonLogger((line) => lines.push(line));
    const logged = await testApp(createDispatchApp({ allowPrivateNetworks: true }), {
      ...DISPATCH_ROUTER_OPTIONS,
      logger,
    });
    try {
      for (const headers of ['Accept: */*\nBearer sk_live_SECRET123', 'Bearer sk_live:SECRET123']) {
        const { status, body } = await logged.execute('http-request', { url: `${receiver.url}/x`, headers });
        expect(status).toBe(400);
        expect(body.message).toMatch(/^Header line \d is not "Name: value"$/);
        expect(JSON.stringify(body)).not.toContain('SECRET123');
      }
      expect(lines.join('')).not.toContain('SECRET123');
      expect(receiver.received).toHaveLength(0);
    } finally {
      await logged.close();
    }
  });

  it('answers 400 for a host that does not exist', async () => {
    const { status, body } = await app.execute('http-request', { url: 'http://no-such-host.invalid/' });
    expect(status).toBe(400);
    expect(body.message).toMatch(/no such host/);
  });
});

describe('dispatch: http-request refuses internal addresses by default', () => {
  it.each([
    ['a loopback address', () => `${receiver.url}/x`],
    ['localhost (through DNS)', () => `http://localhost:${receiver.port}/x`],
    ['IPv6 loopback', () => `http://[::1]:${receiver.port}/x`],
    ['cloud metadata', () => 'http://169.254.169.254/latest/meta-data/'],
    ['a private network', () => 'http://10.1.2.3/'],
    ['IPv4-mapped IPv6', () => `http://[::ffff:127.0.0.1]:${receiver.port}/`],
  ])('%s', async (_, url) => {
    const { status, body } = await guarded.execute('http-request', { url: url() });
    expect(status).toBe(400);
    expect(body.message).toMatch(/internal address; requests to internal networks are refused/);
    expect(receiver.received).toHaveLength(0);
  });

  it('classifies addresses', () => {
    for (const internal of [
      '127.0.0.1',
      '10.0.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fd00::1',
      'fe80::1',
      '::ffff:10.0.0.1',
      '224.0.0.1',
      'not-an-ip',
    ]) {
      expect(isInternalAddress(internal), internal).toBe(true);
    }
    for (const external of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700:4700::1111']) {
      expect(isInternalAddress(external), external).toBe(false);
    }
  });
});
