// `weft` loads a command's modules only when that command runs: the bin is run with a preload
// that records every module loaded, and the heavy ones must be absent.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../src/commands/index.js';
import { capture } from './support/capture.js';
import { cleanEnv, exec } from './support/processes.js';

const BIN = fileURLToPath(new URL('../bin/weft.js', import.meta.url));
const TRACE = fileURLToPath(new URL('./support/import-trace.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'weft-lazy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
/** The module URLs `weft <args>` loaded. */
async function loaded(args: string[]): Promise<{ urls: string[]; stdout: string }> {
  const file = join(dir, `trace-${n++}.txt`);
  writeFileSync(file, '');
  const result = await exec(process.execPath, ['--import', TRACE, BIN, ...args], {
    cwd: dir,
    env: cleanEnv({ WEFT_IMPORT_TRACE: file }),
  });
  expect(result.code, result.stderr).toBe(0);
  return { urls: readFileSync(file, 'utf8').split('\n').filter(Boolean), stdout: result.stdout };
}

const HEAVY = [/@electric-sql\/pglite/, /\/express\//, /\/pg-boss\//, /packages\/workspace\//];
const heavyIn = (urls: string[]) => urls.filter((url) => HEAVY.some((re) => re.test(url)));

describe('weft loads only the command that runs', () => {
  it('--version and --help load no command module, nor the workspace, express or PGlite', async () => {
    for (const args of [['--version'], ['--help']]) {
      const { urls, stdout } = await loaded(args);
      expect(stdout).not.toBe('');
      expect(urls.some((url) => url.includes('/commander/'))).toBe(true);
      expect(heavyIn(urls), args.join(' ')).toEqual([]);
      expect(urls.filter((url) => /\/(src|dist)\/commands\/(?!index)/.test(url))).toEqual([]);
    }
  });

  it('check does not load PGlite or the workspace', async () => {
    const { urls, stdout } = await loaded(['check', '--help']);
    expect(stdout).toContain('weft check');
    expect(urls.some((url) => url.includes('/commands/check.'))).toBe(true);
    expect(urls.filter((url) => /pglite|packages\/workspace\/|pg-boss/.test(url))).toEqual([]);
  });

  it('dev --help loads the dev command, not the workspace (loaded once the app is starting)', async () => {
    const { urls } = await loaded(['dev', '--help']);
    expect(urls.some((url) => url.includes('/commands/dev.'))).toBe(true);
    expect(heavyIn(urls)).toEqual([]);
  });
});

describe('the command table', () => {
  it.each(COMMANDS.map((c) => [c.name, c] as const))(
    '%s: the usage and summary listed are those of its module',
    async (_name, entry) => {
      const program = new Command('weft').enablePositionalOptions();
      (await entry.load()).register(program, capture(), () => {});
      const command = program.commands.find((c) => c.name() === entry.name);
      expect(command?.summary()).toBe(entry.summary);
      expect(command?.usage()).toBe(entry.usage);
    },
  );
});
