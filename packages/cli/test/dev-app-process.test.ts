// The app process `weft dev` and `weft invoke` start gets weft's own export conditions: in a
// checkout whose build is fresh, `weft` runs under `weft-dist`, and the app must resolve
// `@weft/core` to that build too rather than have tsx compile core's sources at every start.
// A real child process reports the Node options it was started with.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AppProcess, inheritedConditions } from '../src/commands/dev-app-process.js';
import { capture } from './support/capture.js';

const dir = mkdtempSync(join(tmpdir(), 'weft-app-process-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

// An app module that writes its Node options to OUT and answers on PORT.
const APP = `import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
writeFileSync(process.env.OUT, JSON.stringify(process.execArgv));
createServer((_req, res) => res.end('{}')).listen(Number(process.env.PORT), '127.0.0.1');
`;

describe('the app process', () => {
  it('takes the conditions of the process that starts it, in each spelling Node takes', () => {
    expect(inheritedConditions(['--conditions=weft-dist', '--inspect'])).toEqual(['--conditions=weft-dist']);
    expect(inheritedConditions(['-C', 'a', '--conditions', 'b', '--import', 'x'])).toEqual([
      '--conditions=a',
      '--conditions=b',
    ]);
    expect(inheritedConditions(['--import', 'tsx'])).toEqual([]);
  });

  it('starts the app module with them, before tsx', async () => {
    const file = join(dir, 'app.mjs');
    const out = join(dir, 'argv.json');
    writeFileSync(file, APP);
    const io = { ...capture(), env: { OUT: out } };
    const app = new AppProcess(file, await freePort(), io, ['--conditions=weft-dist']);
    try {
      await app.start();
      const argv = JSON.parse(readFileSync(out, 'utf8')) as string[];
      expect(argv[0]).toBe('--conditions=weft-dist');
      expect(argv).toContain('--import');
    } finally {
      await app.stop();
    }
  }, 60_000);

  it('ends the wait for an app that is stopped before it answers (weft dev refused the data folder)', async () => {
    // An app that never listens: only stopping it ends the wait.
    const file = join(dir, 'silent.mjs');
    writeFileSync(file, 'setInterval(() => {}, 1000);\n');
    const app = new AppProcess(file, await freePort(), { ...capture(), env: {} });
    const started = app.start();
    started.catch(() => {});
    await expect.poll(() => app.child?.pid, { timeout: 30_000 }).toBeDefined();
    await app.stop();
    await expect(started).rejects.toThrow('the app was stopped (SIGTERM)');
  }, 60_000);
});
