// `weft init`: what it writes, with registry versions or local tarballs, and what it refuses.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../src/program.js';
import { scaffoldApp } from '../src/scaffold/scaffold.js';
import { TOOL_VERSIONS } from '../src/scaffold/versions.js';
import { CLI_VERSION } from '../src/version.js';
import { capture } from './support/capture.js';
import { cleanEnv, exec } from './support/processes.js';

const root = mkdtempSync(join(tmpdir(), 'weft-init-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const read = (path: string) => readFileSync(path, 'utf8');

describe('weft init', () => {
  it('writes the integration app with dependencies on this version', async () => {
    const io = capture(root);
    expect(await run(['init', 'My App'], io)).toBe(0);
    const dir = join(root, 'My App');
    for (const file of [
      'package.json',
      'src/app.ts',
      'src/main.ts',
      'test/app.test.ts',
      'test/drift.test.ts',
      'cassettes/app.json',
      'Dockerfile',
      'README.md',
      '.gitignore',
      '.dockerignore',
      'tsconfig.json',
      'account.json',
    ]) {
      expect(existsSync(join(dir, file)), file).toBe(true);
    }
    expect(existsSync(join(dir, '_gitignore'))).toBe(false);
    // `weft dev` keeps its database and secret key in .weft/: `git add .` must not commit them.
    expect(read(join(dir, '.gitignore')).split('\n')).toContain('.weft/');
    const pkg = JSON.parse(read(join(dir, 'package.json')));
    expect(pkg.name).toBe('my-app');
    expect(pkg.dependencies['@weft/core']).toBe(`^${CLI_VERSION}`);
    expect(pkg.devDependencies['@weft/conformance']).toBe(`^${CLI_VERSION}`);
    expect(pkg.overrides).toBeUndefined();
    expect(read(join(dir, 'README.md'))).toMatch(/^# my-app/);
    expect(io.out()).toMatch(/Next: cd My App && npm install && npm test/);
  });

  it('depends on local tarballs with --from, overriding every weft package', () => {
    const packs = join(root, 'packs');
    mkdirSync(packs);
    for (const name of [
      'cli',
      'client',
      'conformance',
      'core',
      'date-range',
      'namespace',
      'sync-engine',
      'workspace',
    ]) {
      writeFileSync(join(packs, `weft-${name}-${CLI_VERSION}.tgz`), '');
    }
    writeFileSync(join(packs, 'weft-core-0.0.1.tgz'), '');
    const result = scaffoldApp({ dir: join(root, 'from-packs'), from: packs, template: 'actions' });
    const pkg = JSON.parse(read(join(result.dir, 'package.json')));
    expect(pkg.dependencies['@weft/core']).toBe(`file:${join(packs, `weft-core-${CLI_VERSION}.tgz`)}`);
    expect(Object.keys(pkg.overrides).sort()).toEqual([
      '@weft/cli',
      '@weft/client',
      '@weft/conformance',
      '@weft/core',
      '@weft/date-range',
      '@weft/namespace',
      '@weft/sync-engine',
      '@weft/workspace',
    ]);
    expect(pkg.overrides['@weft/date-range']).toMatch(/weft-date-range-.*\.tgz$/);
    expect(result.files).toContain('src/app.ts');
    expect(result.files).not.toContain('cassettes/app.json');
  });

  it('runs as the tutorial runs it: the bin of a checkout, with node, from another folder', async () => {
    // In a checkout the bin's imports reach the other packages' TypeScript sources; plain node
    // must not meet them (it failed with ERR_UNKNOWN_FILE_EXTENSION for date-range's src/index.ts).
    const packs = join(root, 'bin-packs');
    mkdirSync(packs);
    for (const name of [
      'cli',
      'client',
      'conformance',
      'core',
      'date-range',
      'namespace',
      'sync-engine',
      'workspace',
    ]) {
      writeFileSync(join(packs, `weft-${name}-${CLI_VERSION}.tgz`), '');
    }
    const bin = fileURLToPath(new URL('../bin/weft.js', import.meta.url));
    const result = await exec(process.execPath, [bin, 'init', 'tutorial-app', '--from', packs], {
      cwd: root,
      env: cleanEnv({}),
    });
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(join(root, 'tutorial-app/src/app.ts'))).toBe(true);
  });

  it('refuses a folder that is not empty, a missing tarball and a bad name, with status 2', async () => {
    const full = join(root, 'full');
    mkdirSync(full);
    writeFileSync(join(full, 'x.txt'), 'x');
    const io = capture(root);
    expect(await run(['init', 'full'], io)).toBe(2);
    expect(io.err()).toMatch(/exists and is not an empty folder/);

    const empty = join(root, 'no-packs');
    mkdirSync(empty);
    const noPacks = capture(root);
    expect(await run(['init', 'x', '--from', 'no-packs'], noPacks)).toBe(2);
    expect(noPacks.err()).toMatch(/missing weft-core-.*\.tgz/);

    const badName = capture(root);
    expect(await run(['init', 'y', '--name', 'Not Valid'], badName)).toBe(2);
  });

  it('uses the third-party versions this repository is tested with', () => {
    const rootPkg = JSON.parse(read(new URL('../../../package.json', import.meta.url).pathname));
    for (const [name, version] of Object.entries(TOOL_VERSIONS)) {
      expect(rootPkg.devDependencies[name], name).toBe(version);
    }
  });
});
