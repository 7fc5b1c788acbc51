// The check itself: on small fixtures (fast, no npm), then every app's real Dockerfile, built with
// Docker where an engine answers, else by running the same steps in a clean temporary copy.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { appsWithDockerfile, dockerCheckAll } from '../docker-check.js';
import { dockerAvailable } from './run-docker.js';
import { checkLocally } from './run-local.js';

/** A tiny app: answers its descriptor with what the build left, and exits 0 on SIGTERM. */
const SERVER = `
const fs = require('node:fs');
const built = fs.readFileSync('../built.txt', 'utf8');
const leaked = fs.existsSync('../secret.txt');
const server = require('node:http').createServer((req, res) => {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ id: [built, process.env.GREETING, leaked ? 'leaked' : 'clean'].join('|') }));
});
server.listen(Number(process.env.PORT), process.env.HOST);
process.on('SIGTERM', () =>
  server.close(() => {
    if (process.env.STOPPED_FILE) fs.writeFileSync(process.env.STOPPED_FILE, String(process.pid));
    process.exit(0);
  }),
);
`;

const roots: string[] = [];
function fixture(dockerfile: string): string {
  const root = mkdtempSync(join(tmpdir(), 'weft-fixture-'));
  roots.push(root);
  mkdirSync(join(root, 'app'));
  writeFileSync(join(root, 'app', 'server.cjs'), SERVER);
  writeFileSync(join(root, 'secret.txt'), 'not for the image');
  writeFileSync(join(root, '.dockerignore'), 'secret.txt\n');
  writeFileSync(join(root, 'Dockerfile'), dockerfile);
  return root;
}
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

const HEAD = `FROM node:20-slim\nWORKDIR /srv\nCOPY . .\n`;

describe('docker-check: local emulation', () => {
  it('runs RUN steps in a copy of the context without ignored files, with ENV, then GETs /', async () => {
    const root = fixture(
      `${HEAD}RUN node -e "require('fs').writeFileSync('built.txt', 'built')"\nENV GREETING="hi there"\nWORKDIR /srv/app\nCMD ["node", "server.cjs"]\n`,
    );
    const result = await checkLocally({ root, dockerfile: 'Dockerfile' });
    expect(result.appId).toBe('built|hi there|clean');
  });

  it('takes an exit that came in time while the check itself was busy', async () => {
    const stoppedFile = join(tmpdir(), `weft-stopped-${process.pid}-${Date.now()}`);
    const root = fixture(
      `${HEAD}RUN node -e "require('fs').writeFileSync('built.txt', 'built')"\nENV STOPPED_FILE=${stoppedFile}\nWORKDIR /srv/app\nCMD ["node", "server.cjs"]\n`,
    );
    roots.push(stoppedFile);
    // Several apps are checked in one process: another's work can hold the event loop past the
    // exit's time limit while the app exits well within it. Held here until the app has exited
    // (it names its pid on the way out) and the limit has passed.
    const busy = (line: string) => {
      if (!line.startsWith('stop:')) return;
      const limitPassed = Date.now() + 400;
      const until = Date.now() + 20_000;
      while (!existsSync(stoppedFile) && Date.now() < until);
      const pid = existsSync(stoppedFile) ? readFileSync(stoppedFile, 'utf8') : '';
      const gone = () => {
        try {
          return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') ?? true;
        } catch {
          return true;
        }
      };
      while ((!gone() || Date.now() < limitPassed) && Date.now() < until);
    };
    const result = await checkLocally({ root, dockerfile: 'Dockerfile', stopTimeoutMs: 200, log: busy });
    expect(result.appId).toBe('built||clean');
  });

  it('fails when a RUN step fails, with its output', async () => {
    const root = fixture(`${HEAD}RUN echo broken build >&2 && exit 3\nCMD ["node", "app/server.cjs"]\n`);
    await expect(checkLocally({ root, dockerfile: 'Dockerfile' })).rejects.toThrow(/exited 3\nbroken build/);
  });

  it('fails when the app exits instead of answering', async () => {
    const root = fixture(`${HEAD}CMD ["node", "-e", "console.error('no config'); process.exit(1)"]\n`);
    await expect(checkLocally({ root, dockerfile: 'Dockerfile' })).rejects.toThrow(
      /exited before answering\nno config/,
    );
  });
});

describe('docker-check: the apps', () => {
  it(`every app's image builds and answers GET / (${dockerAvailable() ? 'docker' : 'local emulation: no Docker engine'})`, async () => {
    const apps = appsWithDockerfile();
    const outcomes = await dockerCheckAll(apps, { mode: 'auto', concurrency: 4 });
    const failures = outcomes.filter((o) => o.error).map((o) => `${o.app}: ${o.error!.message}`);
    expect(failures, failures.join('\n\n')).toEqual([]);
    expect(outcomes.map((o) => o.result!.appId)).toEqual(apps);
  }, 240_000);
});
