// Access restriction over real sockets: an allow-list of addresses and ranges, X-Forwarded-For
// believed only from a trusted proxy, and a shared-secret header.
import { afterEach, describe, expect, test } from 'vitest';
import { type RunningApp, silentLogger, startServer } from '../src/index.js';
import type { AccessOptions } from '../src/security/access.js';
import { accessFromEnv } from '../src/security/access.js';
import { addressList } from '../src/security/address-list.js';
import { trackerApp } from './fixtures/tracker-app.js';

let running: RunningApp | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function serve(access: AccessOptions) {
  running = await startServer(trackerApp(), {
    port: 0,
    host: '127.0.0.1',
    announce: false,
    logger: silentLogger,
    access,
  });
  return (headers: Record<string, string> = {}) =>
    fetch(`${running!.url}/`, { headers }).then(async (r) => ({
      status: r.status,
      body: (await r.json()) as { message?: string },
    }));
}

describe('address lists', () => {
  test('addresses and CIDR ranges, IPv4, IPv6 and IPv4-mapped', () => {
    const list = addressList(['10.0.0.0/8', '192.0.2.7', '2001:db8::/32']);
    expect(list.has('10.200.3.4')).toBe(true);
    expect(list.has('::ffff:10.1.1.1')).toBe(true);
    expect(list.has('192.0.2.7')).toBe(true);
    expect(list.has('192.0.2.8')).toBe(false);
    expect(list.has('2001:db8:1::5')).toBe(true);
    expect(list.has('2001:db9::1')).toBe(false);
    expect(list.has('not an ip')).toBe(false);
  });
  test('a wrong entry is an error at start-up naming it', () => {
    expect(() => addressList(['10.0.0.0/8', '10.0.0.0/33', 'example.com'])).toThrow(
      /"10.0.0.0\/33", "example.com"/,
    );
  });
  test('options from the environment', () => {
    expect(
      accessFromEnv({
        WEFT_ALLOW_FROM: '10.0.0.0/8, 192.0.2.1',
        WEFT_TRUSTED_PROXIES: '127.0.0.1',
        WEFT_SHARED_SECRET: 'a-shared-secret-of-length,second-secret-value',
        WEFT_SHARED_SECRET_HEADER: 'x-app-key',
      }),
    ).toEqual({
      allowFrom: ['10.0.0.0/8', '192.0.2.1'],
      trustedProxies: ['127.0.0.1'],
      sharedSecret: ['a-shared-secret-of-length', 'second-secret-value'],
      sharedSecretHeader: 'x-app-key',
    });
  });
});

describe('allow-list', () => {
  test('a caller outside the list gets a JSON 403; inside it is served', async () => {
    expect((await (await serve({ allowFrom: ['192.0.2.0/24'] }))()).status).toBe(403);
    await running!.close();
    const get = await serve({ allowFrom: ['127.0.0.0/8'] });
    expect((await get()).status).toBe(200);
  });
  test('X-Forwarded-For is ignored unless the peer is a trusted proxy', async () => {
    const get = await serve({ allowFrom: ['192.0.2.0/24'] });
    const spoofed = await get({ 'x-forwarded-for': '192.0.2.10' });
    expect(spoofed.status).toBe(403);
    expect(spoofed.body.message).toContain('not accepted');
  });
  test('behind a trusted proxy the rightmost untrusted forwarded address is the client', async () => {
    const get = await serve({ allowFrom: ['192.0.2.0/24'], trustedProxies: ['127.0.0.1', '10.0.0.0/8'] });
    expect((await get({ 'x-forwarded-for': '192.0.2.10' })).status).toBe(200);
    expect((await get({ 'x-forwarded-for': '192.0.2.10, 10.1.2.3' })).status).toBe(200);
    // A client cannot prepend an allowed address: the proxy appends the real one.
    expect((await get({ 'x-forwarded-for': '192.0.2.10, 198.51.100.9' })).status).toBe(403);
    expect((await get()).status).toBe(403);
  });
});

describe('shared secret header', () => {
  const SECRET = 'shared-secret-0123456789';
  test('missing or wrong is a JSON 401; any configured value (rotation) passes', async () => {
    const get = await serve({ sharedSecret: [SECRET, 'next-shared-secret-abcdef'] });
    const missing = await get();
    expect(missing.status).toBe(401);
    expect(missing.body.message).toContain('x-weft-secret');
    expect((await get({ 'x-weft-secret': 'wrong' })).status).toBe(401);
    expect((await get({ 'x-weft-secret': SECRET })).status).toBe(200);
    expect((await get({ 'x-weft-secret': 'next-shared-secret-abcdef' })).status).toBe(200);
  });
  test('a custom header name, combined with an allow-list', async () => {
    const get = await serve({
      sharedSecret: SECRET,
      sharedSecretHeader: 'X-App-Key',
      allowFrom: ['127.0.0.1'],
    });
    expect((await get({ 'x-app-key': SECRET })).status).toBe(200);
    expect((await get({ 'x-weft-secret': SECRET })).status).toBe(401);
  });
  test('a short shared secret is refused at start-up', async () => {
    await expect(
      startServer(trackerApp(), { access: { sharedSecret: 'short' }, logger: silentLogger, announce: false }),
    ).rejects.toThrow('at least 16 characters');
  });
});
