// Loading the kit loads only what a run against a URL needs: core's wire schemas, not its server
// (Express, the OAuth client libraries), which `checkDrift` loads when it is handed a definition
// to start. Checked in a fresh process, where the module cache shows what was loaded.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const KIT = fileURLToPath(new URL('../src/index.ts', import.meta.url));

function loadedAfter(script: string): string[] {
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    // Bare specifiers resolve from the kit's package.
    cwd: fileURLToPath(new URL('..', import.meta.url)),
  });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '[]') as string[];
}

const report = `
  import { createRequire } from 'node:module';
  const require = createRequire(import.meta.url);
  console.log(JSON.stringify(Object.keys(require.cache).map((f) => f.match(/node_modules\\/\\.pnpm\\/([^@/]+)@/)?.[1]).filter(Boolean)));
`;

describe('what loading the kit loads', () => {
  it('not Express nor the OAuth clients', () => {
    const loaded = loadedAfter(`await import(${JSON.stringify(KIT)});${report}`);
    expect(loaded).not.toContain('express');
    expect(loaded).not.toContain('simple-oauth2');
  }, 60_000);

  it('the server once checkDrift is handed a definition (the check above can see it)', () => {
    const loaded = loadedAfter(`await import('@weft/core/testing');${report}`);
    expect(loaded).toContain('express');
  }, 60_000);
});
