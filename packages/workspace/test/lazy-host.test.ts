// `weft dev` loads the workspace with its app host; the date-phrase grammar (chrono-node and
// date-fns, hundreds of modules) loads only when a source's date filter is given as a phrase.
// A real process, traced by the CLI's import-trace preload (every module URL loaded).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, expect, it } from 'vitest';

const INDEX = join(import.meta.dirname, '..', 'src', 'index.ts');
const TRACE = join(import.meta.dirname, '..', '..', 'cli', 'test', 'support', 'import-trace.mjs');
const dir = mkdtempSync(join(tmpdir(), 'weft-lazy-host-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('the workspace with its app host loads without the date-phrase grammar', async () => {
  const trace = join(dir, 'trace.txt');
  writeFileSync(trace, '');
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--import',
      TRACE,
      '--input-type=module',
      '-e',
      `const { startHostedWorkspace } = await import(${JSON.stringify(pathToFileURL(INDEX).href)});
       if (typeof startHostedWorkspace !== 'function') process.exit(3);`,
    ],
    { env: { ...process.env, WEFT_IMPORT_TRACE: trace }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const code = await new Promise((r) => child.once('exit', r));
  expect(code, err).toBe(0);
  const urls = readFileSync(trace, 'utf8').split('\n').filter(Boolean);
  expect(urls.some((url) => /packages\/workspace\/src\/host\/app-host\./.test(url))).toBe(true);
  expect(urls.filter((url) => /chrono-node|date-fns|packages\/date-range\//.test(url))).toEqual([]);
}, 120_000);
