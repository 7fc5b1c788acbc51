// `pnpm workspace` holds its PGlite folder as `weft dev` does (one lock, db/data-folder-lock.ts):
// a real process, started as `pnpm workspace` runs it, refused while another live process holds
// the folder, and holding it (then letting go) itself.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCK_FILE } from '../src/db/data-folder-lock.js';

const ENTRY = join(import.meta.dirname, '..', '..', '..', 'scripts', 'workspace.mjs');
const root = mkdtempSync(join(tmpdir(), 'weft-workspace-lock-'));
const children: ChildProcess[] = [];
afterAll(() => {
  // A failed test may leave one running.
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM'); // passed on to the server it runs
  rmSync(root, { recursive: true, force: true });
});

/** `pnpm workspace` on `folder`: resolves with its output once it exits, or once it listens. */
function startWorkspace(folder: string) {
  const child = spawn(process.execPath, ['--conditions=weft-dist', ENTRY], {
    env: { ...process.env, WEFT_DATA_DIR: folder, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const listening = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', () => {
      if (stdout.includes('Workspace listening on ')) resolve();
    });
    exited.then(() => reject(new Error(`exited before listening: ${stderr}`)));
  });
  listening.catch(() => {}); // awaited only by the tests that expect it to listen

  return { child, exited, listening, output: () => ({ stdout, stderr }) };
}

describe('pnpm workspace and the data-folder lock', () => {
  it('stops at once, naming the live process that holds the folder', async () => {
    const folder = join(root, 'held');
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    const holderExited = new Promise((r) => holder.once('exit', r));
    try {
      mkdirSync(folder, { recursive: true });
      writeFileSync(
        join(folder, LOCK_FILE),
        JSON.stringify({
          pid: holder.pid,
          command: 'weft dev src/main.ts',
          since: '2026-11-27T17:00:00.000Z',
        }),
      );
      const ws = startWorkspace(folder);
      expect(await ws.exited).toBe(1);
      const { stdout, stderr } = ws.output();
      expect(stdout).not.toContain('Workspace listening');
      expect(stderr.trim()).toBe(
        `pnpm workspace: the data folder ${folder} is in use by process ${holder.pid} (weft dev src/main.ts), ` +
          'running since 2026-11-27T17:00:00.000Z. Stop that process first (Ctrl-C in its terminal, ' +
          `or kill ${holder.pid}), or give this one another folder with WEFT_DATA_DIR.`,
      );
      // The holder's lock is left as it was.
      expect(readFileSync(join(folder, LOCK_FILE), 'utf8')).toContain(`"pid":${holder.pid}`);
    } finally {
      holder.kill('SIGKILL');
      await holderExited;
    }
  });

  it('holds its folder while it runs and lets go when stopped', async () => {
    const folder = join(root, 'own');
    const ws = startWorkspace(folder);
    try {
      await ws.listening;
      // The process serving (the entry may run it as its child: see scripts/checkout-entry.mjs).
      const lock = JSON.parse(readFileSync(join(folder, LOCK_FILE), 'utf8'));
      expect(lock).toMatchObject({ command: 'pnpm workspace', pid: expect.any(Number) });
      // A second one on the folder is refused while the first runs.
      const second = startWorkspace(folder);
      expect(await second.exited).toBe(1);
      expect(second.output().stderr).toContain(`is in use by process ${lock.pid} (pnpm workspace)`);
    } finally {
      ws.child.kill('SIGINT');
    }
    expect(await ws.exited).toBe(0);
    expect(existsSync(join(folder, LOCK_FILE))).toBe(false);
  });
});
