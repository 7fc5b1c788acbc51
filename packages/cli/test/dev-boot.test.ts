// `weft dev` starts the app and the workspace side by side: the app module below does not listen
// until the test has seen "Workspace listening", so a weft dev that waited for the app before
// starting the workspace would never print it. A deadline, no timing asserts.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanEnv } from './support/processes.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
// Inside packages/cli so that the module resolves @weft/core like an app of this repository.
const appFolder = mkdtempSync(join(root, 'packages/cli/test/.dev-boot-'));
const dataFolder = mkdtempSync(join(tmpdir(), 'weft-dev-boot-'));
const go = join(dataFolder, 'go');
afterAll(() => {
  rmSync(appFolder, { recursive: true, force: true });
  rmSync(dataFolder, { recursive: true, force: true });
});

const APP = `import { existsSync } from 'node:fs';
import { auth, defineApp, field, startServer } from '@weft/core';

while (!existsSync(${JSON.stringify(go)})) await new Promise((r) => setTimeout(r, 50));
const app = defineApp({
  id: 'late',
  name: 'Late',
  version: '1.0.0',
  description: 'an app that listens once the test says so',
  website: 'http://127.0.0.1/',
  authentication: [auth.none({ name: 'None' })],
  sync: {
    types: {
      item: {
        name: 'Items',
        fields: { id: field.id(), name: field.title({ name: 'Name' }) },
        async *data() {
          yield { id: 'i1', name: 'one' };
        },
      },
    },
  },
});
await startServer(app, { defaultPort: 3999, shutdownGraceMs: 500 });
`;

describe('weft dev boot', () => {
  it('starts the workspace while the app is still starting', async () => {
    const file = join(appFolder, 'app.ts');
    writeFileSync(file, APP);
    const child = spawn(
      process.execPath,
      // An account is given: on a fresh folder without one, weft dev first asks the app which
      // account it needs (docs/dev.md, "Start time"), and only then boots the workspace.
      [
        '--import',
        'tsx',
        join(root, 'packages/cli/src/main.ts'),
        'dev',
        file,
        '--no-watch',
        '--account',
        '{}',
      ],
      {
        cwd: join(root, 'packages/cli'),
        env: cleanEnv({
          PORT: '0',
          WEFT_ADMIN_TOKEN: 'dev-boot-token-1',
          WEFT_RATE_LIMIT: '0',
          INIT_CWD: dataFolder,
        }),
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('Workspace listening') && !existsSync(go)) writeFileSync(go, '');
    });
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      const until = Date.now() + 90_000;
      while (!out.includes('Ready.') && Date.now() < until && child.exitCode === null)
        await new Promise((r) => setTimeout(r, 100));
      expect(out, err).toContain('Ready.');
      expect(out.indexOf('Workspace listening')).toBeLessThan(out.indexOf('Source Late'));
      expect(out).toMatch(/Synced 1 rows/);
    } finally {
      // Let a waiting app go, so that weft dev stops it on the way out.
      if (!existsSync(go)) writeFileSync(go, '');
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
  }, 120_000);

  it('reports an app that fails to start, and stops the workspace', async () => {
    const file = join(appFolder, 'broken.ts');
    writeFileSync(file, `throw new Error('broken on purpose');\n`);
    const child = spawn(
      process.execPath,
      // An account is given: on a fresh folder without one, weft dev first asks the app which
      // account it needs (docs/dev.md, "Start time"), and only then boots the workspace.
      [
        '--import',
        'tsx',
        join(root, 'packages/cli/src/main.ts'),
        'dev',
        file,
        '--no-watch',
        '--account',
        '{}',
      ],
      {
        cwd: join(root, 'packages/cli'),
        env: cleanEnv({ PORT: '0', WEFT_ADMIN_TOKEN: 'dev-boot-token-2', INIT_CWD: dataFolder }),
      },
    );
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    expect(code).toBe(1);
    expect(err).toMatch(/weft dev: the app exited with status 1/);
  }, 120_000);
});
