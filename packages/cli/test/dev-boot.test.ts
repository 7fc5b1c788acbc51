// `weft dev` starts the app and the workspace side by side: the app module below does not listen
// until the test has seen "Workspace listening", so a weft dev that waited for the app before
// starting the workspace would never print it. A deadline, no timing asserts.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { lateAppSource } from './support/late-app.js';
import { spawnWeftDev } from './support/weft-dev.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
// Inside packages/cli so that the module resolves @weft/core like an app of this repository.
const appFolder = mkdtempSync(join(root, 'packages/cli/test/.dev-boot-'));
const dataFolder = mkdtempSync(join(tmpdir(), 'weft-dev-boot-'));
const go = join(dataFolder, 'go');
afterAll(() => {
  rmSync(appFolder, { recursive: true, force: true });
  rmSync(dataFolder, { recursive: true, force: true });
});

describe('weft dev boot', () => {
  it('starts the workspace while the app is still starting', async () => {
    const file = join(appFolder, 'app.ts');
    writeFileSync(file, lateAppSource(go));
    // An account is given: on a fresh folder without one, weft dev boots the workspace while it
    // asks the app which account it needs (docs/dev.md, "Start time"), and undoes the boot when
    // one is missing.
    const dev = spawnWeftDev([file, '--no-watch', '--account', '{}'], dataFolder, {
      env: { WEFT_ADMIN_TOKEN: 'dev-boot-token-1' },
    });
    const { child, exited } = dev;
    child.stdout?.on('data', () => {
      if (dev.out().includes('Workspace listening') && !existsSync(go)) writeFileSync(go, '');
    });
    try {
      const until = Date.now() + 90_000;
      while (!dev.out().includes('Ready.') && Date.now() < until && child.exitCode === null)
        await new Promise((r) => setTimeout(r, 100));
      expect(dev.out(), dev.err()).toContain('Ready.');
      expect(dev.out().indexOf('Workspace listening')).toBeLessThan(dev.out().indexOf('Source Late'));
      expect(dev.out()).toMatch(/Synced 1 row /);
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
    const dev = spawnWeftDev([file, '--no-watch', '--account', '{}'], dataFolder, {
      env: { WEFT_ADMIN_TOKEN: 'dev-boot-token-2' },
    });
    expect(await dev.exited).toBe(1);
    expect(dev.err()).toMatch(/weft dev: the app exited with status 1/);
  }, 120_000);
});
