// `pnpm workspace` on PGlite listens without loading what only some requests need: the document
// converters (turndown, prosemirror and markdown-it; marked is one small file the page uses too),
// the outbound HTTP client (undici), the Postgres driver's pg, and core's app server with its OAuth
// clients. A real process, traced by the CLI's import-trace preload (every module URL loaded).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';

const ENTRY = join(import.meta.dirname, '..', '..', '..', 'scripts', 'workspace.mjs');
const TRACE = join(import.meta.dirname, '..', '..', 'cli', 'test', 'support', 'import-trace.mjs');
const dir = mkdtempSync(join(tmpdir(), 'weft-lazy-start-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LATER = [
  /\/turndown\//,
  /\/markdown-it\//,
  /\/prosemirror-/,
  /\/undici\//,
  /\/node_modules\/pg\//,
  // core's main entry (the app server and its OAuth clients): the workspace takes its server
  // limits, body check and redaction from core's light entries
  /\/packages\/core\/(src|dist)\/index\./,
  /\/simple-oauth2\//,
];

it("listens on PGlite without the document converters, undici, pg or core's app server", async () => {
  const trace = join(dir, 'trace.txt');
  writeFileSync(trace, '');
  const child = spawn(process.execPath, ['--conditions=weft-dist', '--import', TRACE, ENTRY], {
    env: { ...process.env, WEFT_IMPORT_TRACE: trace, WEFT_DATA_DIR: ':memory:', PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise((r) => child.once('exit', r));
  try {
    await new Promise<void>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
        if (out.includes('Workspace listening on ')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`the workspace exited with ${code}`)));
    });
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
  const urls = readFileSync(trace, 'utf8').split('\n').filter(Boolean);
  // The trace sees the workspace's own modules and PGlite...
  expect(urls.some((url) => /packages\/workspace\/(src|dist)\/start-workspace\./.test(url))).toBe(true);
  expect(urls.some((url) => url.includes('@electric-sql/pglite'))).toBe(true);
  // ...and none of these.
  expect(urls.filter((url) => LATER.some((re) => re.test(url)))).toEqual([]);
}, 120_000);
