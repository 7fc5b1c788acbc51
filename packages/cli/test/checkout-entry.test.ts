// The checkout's runner (scripts/checkout-entry.mjs) runs the build only while it is newer than
// every package's sources; a source edited since means the sources run.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { buildIsFresh } from '../../../scripts/checkout-entry.mjs';

const root = mkdtempSync(join(tmpdir(), 'weft-checkout-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Writes `file` (under the fake packages folder) with its modification time `seconds` ago. */
function file(path: string, secondsAgo: number): void {
  const full = join(root, path);
  mkdirSync(join(full, '..'), { recursive: true });
  writeFileSync(full, '');
  const at = Date.now() / 1000 - secondsAgo;
  utimesSync(full, at, at);
}
const fresh = () => buildIsFresh(pathToFileURL(`${root}/`));

describe('the checkout runs its build', () => {
  it('when every package has one newer than its sources, and not otherwise', () => {
    file('core/src/index.ts', 100);
    file('core/src/deep/module.ts', 90);
    file('workspace/src/index.ts', 100);
    file('templates-only/README.md', 100); // no sources: nothing to build
    expect(fresh()).toBe(false); // no build at all
    file('core/dist/index.js', 50);
    expect(fresh()).toBe(false); // the workspace has none
    file('workspace/dist/index.js', 50);
    expect(fresh()).toBe(true);
    file('core/src/deep/module.test.ts', 10); // tests are not built
    expect(fresh()).toBe(true);
    file('core/src/deep/module.ts', 10); // edited after the build
    expect(fresh()).toBe(false);
  });
});

describe("every package's exports", () => {
  // The build runs with the `weft-dist` condition: a subpath without it would resolve to its
  // TypeScript source, which plain Node cannot load ("Unknown file extension .ts").
  const packages = new URL('../../', import.meta.url);
  for (const name of readdirSync(packages)) {
    const manifest = new URL(`${name}/package.json`, packages);
    if (!existsSync(manifest)) continue;
    const pkg = JSON.parse(readFileSync(manifest, 'utf8'));
    it(`${pkg.name}: each subpath has a build for the checkout and for the registry`, () => {
      for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
        expect(target, `${pkg.name} ${subpath}`).toMatchObject({
          'weft-dist': expect.stringMatching(/^\.\/dist\/.*\.js$/),
          default: expect.stringMatching(/^\.\/src\/.*\.ts$/),
        });
        expect(pkg.publishConfig?.exports?.[subpath], `${pkg.name} ${subpath} when packed`).toMatchObject({
          default: (target as Record<string, string>)['weft-dist'],
        });
      }
    });
  }
});
