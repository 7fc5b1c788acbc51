// Loading the kit loads only what a run against a URL needs: core's wire schemas, not its server
// (Express, the OAuth client libraries), which `checkDrift` loads when it is handed a definition
// to start, nor the date grammar's parser, loaded when a date filter is given as text. Checked in
// a fresh process, where the CommonJS module cache and a loader hook (for ES modules) show what
// was loaded.
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

// Records every ES module's URL as it is loaded, on a port of the hook thread; a last import of a
// marker tells the main thread that every URL before it has arrived.
const HOOKS = `
  let port;
  export function initialize(data) { port = data.port; }
  export async function resolve(specifier, context, next) {
    if (specifier === 'weft-marker:end') { port.postMessage('end'); return { url: 'data:text/javascript,', shortCircuit: true }; }
    const resolved = await next(specifier, context);
    port.postMessage(resolved.url);
    return resolved;
  }
`;
const watch = `
  import { register } from 'node:module';
  import { MessageChannel } from 'node:worker_threads';
  const channel = new MessageChannel();
  const esm = [];
  const ended = new Promise((done) => channel.port1.on('message', (url) => (url === 'end' ? done() : esm.push(url))));
  register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOKS)}), {
    data: { port: channel.port2 },
    transferList: [channel.port2],
  });
`;
const report = `
  await import('weft-marker:end');
  await ended;
  channel.port1.close();
  import { createRequire } from 'node:module';
  const require = createRequire(import.meta.url);
  const files = [...Object.keys(require.cache), ...esm];
  console.log(JSON.stringify(files.map((f) => f.match(/node_modules\\/\\.pnpm\\/([^@/]+)@/)?.[1]).filter(Boolean)));
`;

describe('what loading the kit loads', () => {
  it('not Express nor the OAuth clients', () => {
    const loaded = loadedAfter(`${watch}await import(${JSON.stringify(KIT)});${report}`);
    expect(loaded).toContain('zod');
    expect(loaded).not.toContain('express');
    expect(loaded).not.toContain('simple-oauth2');
    expect(loaded).not.toContain('chrono-node');
  }, 60_000);

  it('the server once checkDrift is handed a definition (the check above can see it)', () => {
    const loaded = loadedAfter(`${watch}await import('@weft/core/testing');${report}`);
    expect(loaded).toContain('express');
  }, 60_000);

  it('the date grammar once a date filter is given as text (the check above can see it)', () => {
    const loaded = loadedAfter(
      `${watch}const kit = await import(${JSON.stringify(KIT)});
      await kit.resolveDateFilters([{ id: 'created', type: 'date' }], { created: 'last week' }, new Date());${report}`,
    );
    expect(loaded).toContain('chrono-node');
  }, 60_000);
});
