// The whole way a new user goes, outside this workspace: pack the packages, `weft init` an app in
// a temporary folder, install it from the tarballs with npm, type-check it, run its tests, serve
// it and run `weft check` against it. Slow (npm downloads the third-party packages), so it runs
// in CI (CI=true) or with WEFT_E2E=1, and is skipped with a printed reason otherwise. Without
// the npm registry it fails: the point is that a fresh install works.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { type Pack, packAll } from '../scripts/pack-all.js';
import { cleanEnv, exec, type Server, startServer } from './support/processes.js';

const enabled = process.env.CI === 'true' || process.env.WEFT_E2E === '1';
if (!enabled) {
  console.log('outside-workspace e2e skipped: it runs with CI=true or WEFT_E2E=1 (npm registry needed)');
}

// `weft init` runs from this workspace's source (inside the workspace the built CLI would import
// the other packages' sources); the packed CLI then runs from the app's node_modules (weft check).
const WEFT_MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const TSX = fileURLToPath(new URL('../../../node_modules/.bin/tsx', import.meta.url));
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const dir = mkdtempSync(join(tmpdir(), 'weft-e2e-'));
const servers: Server[] = [];

afterAll(async () => {
  for (const server of servers) await server.stop();
  rmSync(dir, { recursive: true, force: true });
  // Stopping the servers and removing an npm-installed tree takes seconds on a loaded machine.
}, 120_000);

describe.runIf(enabled)('weft outside the workspace', () => {
  it('packs, scaffolds, installs with npm, type-checks, tests and passes weft check', async () => {
    const timings: Record<string, number> = {};
    const time = async <T>(step: string, work: () => Promise<T> | T): Promise<T> => {
      const started = Date.now();
      try {
        return await work();
      } finally {
        timings[step] = Date.now() - started;
      }
    };
    const must = (step: string, result: { code: number; stdout: string; stderr: string }) => {
      expect(result.code, `${step} failed:\n${result.stdout}\n${result.stderr}`).toBe(0);
    };

    const steps: string[] = [];
    const packs: Pack[] = await time('pack', () => packAll((step) => steps.push(step)));
    // `pnpm packs` says what it is doing: the build first, then each package.
    expect(steps[0]).toMatch(/^building/);
    expect(steps.slice(1)).toEqual(
      packs.map((_, i) => expect.stringMatching(new RegExp(`\\(${i + 1}/${packs.length}\\)$`))),
    );
    // Every package packs; the app below needs these four.
    expect(packs.map((p) => p.file.split(/[\\/]/).at(-1))).toEqual(
      expect.arrayContaining([
        'weft-cli-0.1.0.tgz',
        'weft-conformance-0.1.0.tgz',
        'weft-core-0.1.0.tgz',
        'weft-date-range-0.1.0.tgz',
      ]),
    );
    const packsDir = join(packs[0]!.file, '..');

    const init = await time('init', () =>
      exec(TSX, [WEFT_MAIN, 'init', 'tasks-app', '--from', packsDir], { cwd: dir }),
    );
    must('weft init', init);
    const app = join(dir, 'tasks-app');
    const pkg = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8'));
    expect(pkg.dependencies['@weft/core']).toMatch(/^file:.*weft-core-0\.1\.0\.tgz$/);
    expect(pkg.overrides['@weft/core']).toBe(pkg.dependencies['@weft/core']);

    must(
      'npm install',
      await time('npm install', () =>
        exec(NPM, ['install', '--no-audit', '--no-fund'], { cwd: app, timeoutMs: 150_000 }),
      ),
    );
    // What npm installed is the packed code, not this workspace's sources.
    const installed = JSON.parse(readFileSync(join(app, 'node_modules/@weft/core/package.json'), 'utf8'));
    expect(installed.exports['.'].default).toBe('./dist/index.js');

    must('npm run typecheck', await time('typecheck', () => exec(NPM, ['run', 'typecheck'], { cwd: app })));
    must('npm test', await time('npm test', () => exec(NPM, ['test'], { cwd: app })));

    // Serve the app against the demo tracker, both on free ports, and check it with the packed CLI.
    const checked = await time('weft check', async () => {
      // tsx directly rather than `npm run`: stopping it then stops the server too.
      const tsx = join(app, 'node_modules/.bin/tsx');
      const tracker = await startServer(tsx, ['src/serve-tracker.ts'], {
        cwd: app,
        env: cleanEnv({ TRACKER_PORT: '0' }),
      });
      servers.push(tracker);
      const served = await startServer(tsx, ['src/main.ts'], {
        cwd: app,
        env: cleanEnv({ PORT: '0', HOST: '127.0.0.1', TRACKER_URL: tracker.url }),
      });
      servers.push(served);
      return exec(join(app, 'node_modules/.bin/weft'), ['check', served.url, '--account', 'account.json'], {
        cwd: app,
      });
    });
    must('weft check', checked);
    expect(checked.stdout).toMatch(/0 failed/);

    // The packed CLI scaffolds too (its templates ship in the tarball).
    const packedInit = await exec(
      join(app, 'node_modules/.bin/weft'),
      ['init', '../notify-app', '--template', 'actions', '--from', packsDir],
      { cwd: app },
    );
    must('packed weft init', packedInit);
    expect(readFileSync(join(dir, 'notify-app/src/app.ts'), 'utf8')).toContain("'send-message'");

    const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`;
    console.log(
      `outside-workspace: ${Object.entries(timings)
        .map(([step, ms]) => `${step} ${(ms / 1000).toFixed(1)} s`)
        .join(
          ', ',
        )}; tarballs ${packs.map((p) => `${p.file.split(/[\\/]/).at(-1)} ${kb(p.bytes)}`).join(', ')}`,
    );
  }, 300_000);
});
