// `pnpm start` stopped with Ctrl-C before it is ready: the sample apps run in a process group of
// their own (a terminal's SIGINT reaches only this script), so the script must stop them itself,
// whenever the signal comes. Real processes on the apps' own ports.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const APP_PORTS = [3101, 3102, 3103, 3104, 3105, 3106];

const answers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

async function until(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((done) => setTimeout(done, 250));
  }
  return false;
}

let start: ChildProcess | undefined;
afterAll(() => {
  // Whatever the outcome, leave no app behind for the rest of the suite.
  if (start?.pid && start.exitCode === null) start.kill('SIGKILL');
});

describe('pnpm start and Ctrl-C', () => {
  it('stops every sample app when interrupted before "Ready."', async () => {
    const busy = (await Promise.all(APP_PORTS.map(answers))).some(Boolean);
    expect(busy, `a port of ${APP_PORTS.join(', ')} is already in use`).toBe(false);
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', WEFT_DATA_DIR: ':memory:' };
    for (const key of Object.keys(env)) if (/^(VITEST|npm_)/.test(key)) delete env[key];
    start = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    start.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    start.stderr!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    const exited = once(start, 'exit');

    expect(await until(() => answers(3101), 90_000), out).toBe(true);
    expect(out).not.toContain('Ready.');
    // The demo's apps are quiet: no replica warning about page keys, no line per request.
    expect(out).not.toContain('WEFT_PAGE_KEYS is not set');
    expect(out).not.toMatch(/"msg":"request"/);
    start.kill('SIGINT');
    const [code] = await exited;
    expect(code, out).toBe(0);
    expect(out).toMatch(/SIGINT: stopping the sample apps/);
    const allStopped = await until(
      async () => !(await Promise.all(APP_PORTS.map(answers))).some(Boolean),
      20_000,
    );
    expect(allStopped, `still listening after the script ended:\n${out}`).toBe(true);
  }, 150_000);
});

describe('pnpm start and Ctrl-C, through pnpm', () => {
  it('stops quietly: no "ELIFECYCLE Command failed" from pnpm after a Ctrl-C', async () => {
    const busy = (await Promise.all(APP_PORTS.map(answers))).some(Boolean);
    expect(busy, `a port of ${APP_PORTS.join(', ')} is already in use`).toBe(false);
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', WEFT_DATA_DIR: ':memory:' };
    for (const key of Object.keys(env)) if (/^(VITEST|npm_)/.test(key)) delete env[key];
    // pnpm in a process group of its own, as a terminal's foreground job: Ctrl-C is a SIGINT to
    // the whole group (pnpm, the script, and whatever pnpm runs it through).
    start = spawn('npx', ['-y', 'pnpm@10.34.8', 'start'], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    start.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    start.stderr!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    const exited = once(start, 'exit');
    expect(await until(async () => out.includes('Workspace listening'), 120_000), out).toBe(true);
    process.kill(-start.pid!, 'SIGINT');
    await exited;
    expect(out).toMatch(/SIGINT: stopping the sample apps/);
    expect(out).not.toContain('ELIFECYCLE');
    expect(out).not.toContain('Command failed');
    const allStopped = await until(
      async () => !(await Promise.all(APP_PORTS.map(answers))).some(Boolean),
      20_000,
    );
    expect(allStopped, `still listening after pnpm ended:\n${out}`).toBe(true);
  }, 180_000);
});
