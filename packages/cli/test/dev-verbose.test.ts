// `weft dev --verbose` prints each data request of the sync as it happens, the same record the
// page shows under the run: the request with the account's token redacted, status, duration,
// items, and a failing page's error body (the token it echoes redacted too).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entryArgs } from '../../../scripts/test-support/checkout-node.js';
import { GOOD_TOKEN, serveShelf } from './fixtures/invoke-app.js';
import { cleanEnv } from './support/processes.js';

const folder = mkdtempSync(join(tmpdir(), 'weft-dev-verbose-'));
let app: Awaited<ReturnType<typeof serveShelf>>;
beforeAll(async () => {
  app = await serveShelf();
});
afterAll(async () => {
  await app.close();
  rmSync(folder, { recursive: true, force: true });
});

describe('weft dev --verbose', () => {
  it('prints every exchange of the sync, secrets redacted', async () => {
    const child = spawn(
      process.execPath,
      [
        ...entryArgs('cli', 'main'),
        'dev',
        app.url,
        '--account',
        JSON.stringify({ token: GOOD_TOKEN }),
        '--types',
        'book,broken',
        '--verbose',
      ],
      {
        cwd: fileURLToPath(new URL('..', import.meta.url)),
        env: cleanEnv({ PORT: '0', WEFT_ADMIN_TOKEN: 'dev-verbose-admin-token', INIT_CWD: folder }),
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const until = Date.now() + 150_000;
    while (!out.includes('Ready.') && Date.now() < until && child.exitCode === null)
      await new Promise((r) => setTimeout(r, 100));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(out, err).toContain('Ready.');
    expect(out).toMatch(
      /POST \/api\/v1\/synchronizer\/data 200 in \d+ ms: book page 1: 2 items\n {2}request: \{"requestedType":"book"/,
    );
    expect(out).toMatch(/: book page 3: 1 items\n/);
    expect(out).toContain('"token":"[redacted]"');
    expect(out).toMatch(
      /POST \/api\/v1\/synchronizer\/data 500 in \d+ ms: broken page 1\n {2}request: .*\n {2}answer: \{"message":"Upstream refused token \[redacted\]","code":"upstream"\}/,
    );
    expect(`${out}${err}`).not.toContain(GOOD_TOKEN);
  }, 180_000);
});
