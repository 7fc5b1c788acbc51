// The data-folder lock with real processes: a live holder (a child process) is named, a holder
// that is gone (a child that exited), a pid now held by another process (a reused pid) or a lock
// file that is not one is taken over, and a release removes only this process' own lock.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DataFolderInUse, LOCK_FILE, lockDataFolder } from '../src/db/data-folder-lock.js';
import { processStartTime } from '../src/db/process-start-time.js';

const root = mkdtempSync(join(tmpdir(), 'weft-lock-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const holder = (pid: number, started?: string) =>
  JSON.stringify({ pid, started, command: 'weft dev src/main.ts', since: '2026-11-27T17:00:00.000Z' });

/** A live child process (a stand-in for another weft dev), killed and awaited by `stop`. */
function liveProcess() {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
  const exited = new Promise((r) => child.once('exit', r));
  return {
    pid: child.pid as number,
    async stop() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

describe('lockDataFolder', () => {
  it('names a live holder, and takes the lock once that process is gone', async () => {
    const folder = join(root, 'live', '.weft');
    const child = liveProcess();
    try {
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, LOCK_FILE), holder(child.pid as number));
      expect(() => lockDataFolder(folder, 'weft dev other.ts')).toThrow(DataFolderInUse);
      expect(() => lockDataFolder(folder, 'weft dev other.ts')).toThrow(
        `is in use by process ${child.pid} (weft dev src/main.ts), running since 2026-11-27T17:00:00.000Z`,
      );
    } finally {
      await child.stop();
    }
    const lock = lockDataFolder(folder, 'weft dev other.ts');
    expect(lock.tookOverFrom?.pid).toBe(child.pid);
    expect(JSON.parse(readFileSync(lock.file, 'utf8'))).toMatchObject({
      pid: process.pid,
      command: 'weft dev other.ts',
    });
    lock.release();
    expect(existsSync(lock.file)).toBe(false);
  });

  it('names a live holder by its start time, and takes over a pid that another process now has', async () => {
    const folder = join(root, 'reused', '.weft');
    const child = liveProcess();
    try {
      const started = processStartTime(child.pid);
      expect(started).toBeDefined();
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, LOCK_FILE), holder(child.pid, started));
      expect(() => lockDataFolder(folder, 'weft dev other.ts')).toThrow(DataFolderInUse);
      // The same pid, but the lock was written by a process that started at another time: that
      // process is gone and its pid was given to this one.
      writeFileSync(join(folder, LOCK_FILE), holder(child.pid, `${started}-earlier`));
      const lock = lockDataFolder(folder, 'weft dev other.ts');
      expect(lock.tookOverFrom?.pid).toBe(child.pid);
      expect(JSON.parse(readFileSync(lock.file, 'utf8'))).toMatchObject({
        pid: process.pid,
        started: processStartTime(process.pid),
      });
      lock.release();
      expect(existsSync(lock.file)).toBe(false);
    } finally {
      await child.stop();
    }
  });

  it('takes over a file that is no lock, and never removes a lock another process took', () => {
    const folder = join(root, 'odd', '.weft');
    const first = lockDataFolder(folder, 'weft dev a.ts');
    writeFileSync(first.file, 'not json');
    const second = lockDataFolder(folder, 'weft dev b.ts');
    expect(second.tookOverFrom).toBeUndefined();
    // Another process holds it now: this one's release leaves it.
    writeFileSync(second.file, holder(process.ppid));
    second.release();
    expect(existsSync(second.file)).toBe(true);
  });
});
