// `weft dev <url> --verify` as a user runs it: the first sync, then Verify prints what drifted. The
// app derives its ids from a value that changes on every view, so a fresh full sync finds every
// row under a new id.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type TestApp, testApp } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entryArgs } from '../../../scripts/test-support/checkout-node.js';
import { Tracker, trackerApp } from '../../sync-engine/test/drift-apps.js';
import { cleanEnv } from './support/processes.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const folder = mkdtempSync(join(tmpdir(), 'weft-dev-verify-'));
let app: TestApp;
beforeAll(async () => {
  app = await testApp(trackerApp(new Tracker(), 'unstable-ids'));
});
afterAll(async () => {
  await app?.close();
  rmSync(folder, { recursive: true, force: true });
});

describe('weft dev --verify', () => {
  it('syncs, then prints the drift Verify finds', async () => {
    const child = spawn(
      process.execPath,
      [...entryArgs('cli', 'main'), 'dev', app.url, '--verify', '--no-watch'],
      {
        cwd: join(root, 'packages/cli'),
        env: cleanEnv({ PORT: '0', WEFT_ADMIN_TOKEN: 'dev-verify-token-1', INIT_CWD: folder }),
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
    expect(out).toMatch(/Synced 12 rows/);
    expect(out).toMatch(
      /Verify: the workspace drifted from the app: task: 12 extra \(the syncs never removed them: '[0-9a-f-]{36} \(Task \d+\)', .*; 12 missing \(the syncs never added them: 't01\.2', /,
    );
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  }, 120_000);
});
