import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkspace } from '../src/start-workspace.js';
import {
  OutboundPolicy,
  OutboundRefusedError,
  OutboundTooLargeError,
  OutboundUnreachableError,
  outboundFetch,
  readText,
  refusedClass,
} from '../src/outbound/index.js';
import { closedPort, localSource, namesLookup } from './support/local-source.js';

// The outbound policy on its own, against a loopback server. Addresses outside loopback are only
// ever judged, never connected to: a refused address is refused before any connection.

const testLookup = namesLookup({ 'files.test': '127.0.0.1', 'rebind.test': '127.0.0.1' });

describe('the outbound policy', () => {
  const source = localSource((req, res) => {
    if (req.url === '/big') return res.writeHead(200).end('x'.repeat(5000));
    if (req.url === '/big-chunked') {
      res.writeHead(200);
      for (let i = 0; i < 50; i++) res.write('y'.repeat(100));
      return res.end();
    }
    if (req.url?.startsWith('/to?'))
      return res.writeHead(302, { location: decodeURIComponent(req.url.slice(4)) }).end();
    if (req.url === '/loop') return res.writeHead(302, { location: '/loop' }).end();
    res.writeHead(200, { 'content-type': 'text/plain' }).end('secret of the inside');
  });
  const on = new OutboundPolicy({ allowPrivateNetworks: false, lookup: testLookup, allow: ['files.test'] });
  beforeAll(() => source.start());
  afterAll(async () => {
    await on.close();
    await source.stop();
  });

  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.9.9.9', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'shared (carrier-grade NAT)'],
    ['0.1.2.3', 'unspecified (this host)'],
    ['224.0.0.1', 'multicast'],
    ['::1', 'loopback'],
    ['fe80::1', 'link-local'],
    ['fc00::1', 'unique-local (private IPv6)'],
    ['fd12::1', 'unique-local (private IPv6)'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['ff02::1', 'multicast'],
    ['64:ff9b::a00:1', 'special-use'],
  ])('%s is refused as %s', (address, name) => {
    expect(refusedClass(address)).toBe(name);
  });

  it.each(['8.8.8.8', '2606:4700::1'])('%s is public', (address) => {
    expect(refusedClass(address)).toBeUndefined();
  });

  it.each([
    ['http://127.0.0.1:PORT/', 'loopback'],
    ['http://2130706433:PORT/', 'loopback'],
    ['http://0x7f.0.0.1:PORT/', 'loopback'],
    ['http://0177.0.0.1:PORT/', 'loopback'],
    ['http://127.1:PORT/', 'loopback'],
    ['http://[::ffff:127.0.0.1]:PORT/', 'loopback'],
    ['http://[::1]:PORT/', 'loopback'],
    ['http://0.0.0.0:PORT/', 'unspecified (this host)'],
    ['http://rebind.test:PORT/', 'loopback'],
  ])('refuses %s (%s) before connecting', async (url, name) => {
    const before = source.seen.length;
    const error = await outboundFetch(on, url.replace('PORT', String(source.port))).catch((e) => e);
    expect(error).toBeInstanceOf(OutboundRefusedError);
    expect(error.addressClass).toBe(name);
    expect(error.message).not.toContain('127.0.0.1');
    expect(source.seen.length).toBe(before);
  });

  it('checks a name at the connection: a name resolving to loopback is refused, an allowed name passes', async () => {
    const ok = await outboundFetch(on, `http://files.test:${source.port}/file`);
    expect(await readText(ok)).toBe('secret of the inside');
  });

  it('checks every redirect again, whatever form its address takes', async () => {
    for (const target of [
      `http://127.0.0.1:${source.port}/file`,
      `http://2130706433:${source.port}/file`,
      `http://rebind.test:${source.port}/file`,
    ]) {
      const before = source.seen.length;
      const error = await outboundFetch(
        on,
        `http://files.test:${source.port}/to?${encodeURIComponent(target)}`,
      ).catch((e) => e);
      expect(error).toBeInstanceOf(OutboundRefusedError);
      expect(source.seen.length).toBe(before + 1);
    }
  });

  it('follows a bounded number of redirects', async () => {
    const error = await outboundFetch(on, `http://files.test:${source.port}/loop`, { maxRedirects: 3 }).catch(
      (e) => e,
    );
    expect(error).toBeInstanceOf(OutboundUnreachableError);
    expect(error.message).toBe('More than 3 redirects');
  });

  it('answers the same for an open and a closed port of a refused address (no port oracle)', async () => {
    const open = await outboundFetch(on, `http://127.0.0.1:${source.port}/`).catch((e) => e);
    const closed = await outboundFetch(on, `http://127.0.0.1:${await closedPort()}/`).catch((e) => e);
    expect(open.message).toBe(closed.message);
    expect(open.constructor).toBe(closed.constructor);
  });

  it('lets private addresses through when allowed, by the flag or an allow-list range', async () => {
    const open = new OutboundPolicy({ allowPrivateNetworks: true });
    const ranged = new OutboundPolicy({ allowPrivateNetworks: false, allow: ['127.0.0.0/8'] });
    try {
      expect(await readText(await outboundFetch(open, `${source.url}/file`))).toBe('secret of the inside');
      expect(await readText(await outboundFetch(ranged, `${source.url}/file`))).toBe('secret of the inside');
    } finally {
      await open.close();
      await ranged.close();
    }
  });

  it('reads an answer only up to its size limit, declared or streamed', async () => {
    for (const path of ['/big', '/big-chunked']) {
      const answer = await outboundFetch(on, `http://files.test:${source.port}${path}`, { maxBytes: 1000 });
      const error = await readText(answer).catch((e) => e);
      expect(error).toBeInstanceOf(OutboundTooLargeError);
    }
  });

  it('refuses an allow-list entry that is neither a name nor a range', () => {
    expect(() => new OutboundPolicy({ allow: ['http://x/'] })).toThrow(/allow-list/);
  });

  it('is on by default for a workspace listening beyond loopback, off on loopback', async () => {
    for (const [host, allowed] of [
      ['0.0.0.0', false],
      ['127.0.0.1', true],
    ] as const) {
      const ws = await startWorkspace({ host, webhooks: false, log: () => {} });
      try {
        expect(ws.outbound.allowPrivateNetworks).toBe(allowed);
      } finally {
        await ws.close();
      }
    }
  });
});
