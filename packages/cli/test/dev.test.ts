// `weft dev` as a user runs it: the bookshelf app module started by the command, the workspace on
// PGlite in a data folder, a first sync with progress, the data read back through the data API,
// and a clean stop on SIGINT.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { entryArgs } from '../../../scripts/test-support/checkout-node.js';
import { cleanEnv } from './support/processes.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const folder = mkdtempSync(join(tmpdir(), 'weft-dev-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('weft dev', () => {
  it('starts the app and the workspace, syncs, serves the data and stops on SIGINT', async () => {
    const child = spawn(
      process.execPath,
      [
        ...entryArgs('cli', 'main'),
        'dev',
        join(root, 'apps/bookshelf/src/main.ts'),
        '--types',
        'genre,author',
      ],
      {
        cwd: join(root, 'packages/cli'),
        env: cleanEnv({ PORT: '0', WEFT_ADMIN_TOKEN: 'dev-test-token-1', INIT_CWD: folder }),
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const until = Date.now() + 90_000;
    while (!out.includes('Ready.') && Date.now() < until && child.exitCode === null)
      await new Promise((r) => setTimeout(r, 100));
    expect(out, err).toContain('Ready.');
    const url = /Workspace listening on (\S+)/.exec(out)?.[1];
    expect(url).toBeDefined();
    expect(out).toMatch(/Syncing \[#+\] 312 rows/);
    expect(out).toMatch(/Synced 312 rows/);
    expect(existsSync(join(folder, '.weft', 'secret.key'))).toBe(true);

    const response = await fetch(`${url}/api/commands`, {
      method: 'POST',
      headers: { authorization: 'Token dev-test-token-1', 'content-type': 'application/json' },
      body: JSON.stringify([
        {
          command: 'svc.entity/query',
          args: { query: { 'q/from': 'bookshelf/author', 'q/select': ['svc/id'], 'q/limit': 'q/no-limit' } },
        },
      ]),
    });
    const [result] = (await response.json()) as { result: unknown[] }[];
    expect(result?.result).toHaveLength(300);

    child.kill('SIGINT');
    expect(await exited).toBe(0);
  }, 120_000);
});
