import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { configFromEnv } from '../src/config.js';
import { describeEachDatabase, useWorkspace } from './support/databases.js';

// HTTPS with a certificate and key (WEFT_TLS_CERT / WEFT_TLS_KEY, startWorkspace({tls})): a
// self-signed pair made here, and real HTTPS requests that trust it (or not).

const pair = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
  keySize: 2048,
  extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
});
const tls = { cert: pair.cert, key: pair.private };

function get(url: string, token: string, ca?: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { headers: { authorization: `Token ${token}` }, ...(ca ? { ca } : {}) },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => {
          text += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describeEachDatabase('HTTPS', (target) => {
  const h = useWorkspace(target, { tls });

  it('serves the data API over HTTPS at an https:// address', async () => {
    expect(h.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const res = await get(`${h.url}/api/schema`, h.token, pair.cert);
    expect(res.status).toBe(200);
    expect(res.body['svc/types'].some((t: any) => t['svc/name'] === 'svc/user')).toBe(true);
  });

  it('a client that does not trust the certificate is refused by its own TLS check', async () => {
    await expect(get(`${h.url}/api/schema`, h.token)).rejects.toThrow(/self[- ]signed|certificate/i);
  });
});

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'weft-tls-'));
  writeFileSync(join(dir, 'cert.pem'), pair.cert);
  writeFileSync(join(dir, 'key.pem'), pair.private);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('WEFT_TLS_CERT and WEFT_TLS_KEY name the files; both or neither; an unreadable file is named, not shown', () => {
  const config = configFromEnv({ WEFT_TLS_CERT: join(dir, 'cert.pem'), WEFT_TLS_KEY: join(dir, 'key.pem') });
  expect(config.tls?.cert.toString()).toBe(pair.cert);
  expect(config.tls?.key.toString()).toBe(pair.private);
  expect(configFromEnv({}).tls).toBeUndefined();
  expect(() => configFromEnv({ WEFT_TLS_CERT: join(dir, 'cert.pem') })).toThrow(/both or neither/);
  expect(() =>
    configFromEnv({ WEFT_TLS_CERT: join(dir, 'cert.pem'), WEFT_TLS_KEY: join(dir, 'nope.pem') }),
  ).toThrow(/WEFT_TLS_KEY: cannot read .*nope\.pem \(ENOENT\)/);
});
