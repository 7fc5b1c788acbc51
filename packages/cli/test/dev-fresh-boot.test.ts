// A first `weft dev` on a fresh folder without --account asks the app which account it needs, and
// boots the workspace meanwhile: the app module below does not listen until the test sees the
// database in the data folder, so a weft dev that waited for the app's answer before booting would
// never get there. A deadline, no timing asserts. (When the answer is "--account is needed", the
// boot is undone: dev-loop.test.ts.)
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { lateAppSource } from './support/late-app.js';
import { spawnWeftDev } from './support/weft-dev.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
// Inside packages/cli so that the module resolves @weft/core like an app of this repository.
const appFolder = mkdtempSync(join(root, 'packages/cli/test/.dev-fresh-boot-'));
const userFolder = mkdtempSync(join(tmpdir(), 'weft-dev-fresh-boot-'));
const go = join(userFolder, 'go');
afterAll(() => {
  rmSync(appFolder, { recursive: true, force: true });
  rmSync(userFolder, { recursive: true, force: true });
});

it('boots the workspace of a fresh folder while asking the app about its account', async () => {
  const file = join(appFolder, 'app.ts');
  writeFileSync(file, lateAppSource(go));
  const dev = spawnWeftDev([file, '--no-watch'], userFolder);
  const { child, exited } = dev;
  try {
    const until = Date.now() + 90_000;
    while (!dev.out().includes('Ready.') && Date.now() < until && child.exitCode === null) {
      if (!existsSync(go) && existsSync(join(userFolder, '.weft', 'PG_VERSION'))) writeFileSync(go, '');
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(dev.out(), dev.err()).toContain('Ready.');
    expect(dev.out()).toMatch(/Admin token: /);
    expect(dev.out()).toMatch(/Synced 1 row /);
  } finally {
    if (!existsSync(go)) writeFileSync(go, '');
    child.kill('SIGINT');
  }
  expect(await exited).toBe(0);
}, 120_000);
