// One process at a time on a data folder: two processes (`weft dev`, `pnpm workspace`) on one
// PGlite folder would open the same files and diverge. The holder writes `weft.lock` (its pid, when
// that process started, its command, since when) into the folder, created exclusively; a second
// process is refused with a message naming the holder. A lock whose process is gone (SIGKILL, a
// crash, a reboot) is taken over, and so is one whose pid now belongs to another process (pids
// are reused): the start time recorded beside the pid tells them apart.
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { pidExists, processStartTime } from './process-start-time.js';

export const LOCK_FILE = 'weft.lock';

const holderSchema = z.object({
  pid: z.number().int().positive(),
  /** when the holding process started (process-start-time.ts); absent in locks of older versions */
  started: z.string().max(200).optional(),
  command: z.string().max(500),
  since: z.string().max(40),
});
export type LockHolder = z.infer<typeof holderSchema>;

/** The folder is held by another live process. */
export class DataFolderInUse extends Error {
  constructor(
    readonly folder: string,
    readonly holder: LockHolder,
  ) {
    super(
      `the data folder ${folder} is in use by process ${holder.pid} (${holder.command}), running since ${holder.since}. ` +
        `Stop that process first (Ctrl-C in its terminal, or kill ${holder.pid}), or give this one another folder with WEFT_DATA_DIR.`,
    );
  }
}

/** True when the process that wrote the lock still runs: its pid exists and started when it did. */
function holderIsAlive(holder: LockHolder): boolean {
  if (holder.pid === process.pid || !pidExists(holder.pid)) return false;
  if (holder.started === undefined) return true;
  const started = processStartTime(holder.pid);
  // Unknown here (no /proc, no ps): the pid alone decides, as before.
  return started === undefined || started === holder.started;
}

/** The lock's holder, when the file holds one (an unreadable or foreign file holds none). */
function readHolder(file: string): LockHolder | undefined {
  try {
    const parsed = holderSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export interface DataFolderLock {
  readonly file: string;
  /** a lock taken over from a process that is gone */
  readonly tookOverFrom: LockHolder | undefined;
  release(): void;
}

/**
 * Takes the folder's lock for this process (creating the folder), or throws DataFolderInUse.
 * `command` is shown to the next process: never pass a secret (no `--account` values).
 */
export function lockDataFolder(folder: string, command: string): DataFolderLock {
  mkdirSync(folder, { recursive: true });
  const file = join(folder, LOCK_FILE);
  const started = processStartTime(process.pid);
  const holder: LockHolder = {
    pid: process.pid,
    ...(started !== undefined ? { started } : {}),
    command,
    since: new Date().toISOString(),
  };
  let tookOverFrom: LockHolder | undefined;
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      try {
        writeSync(fd, `${JSON.stringify(holder)}\n`);
      } finally {
        closeSync(fd);
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 3) throw error;
      const current = readHolder(file);
      if (current && holderIsAlive(current)) throw new DataFolderInUse(folder, current);
      // Gone (or the file is not a lock): taken over. Another starter may take it first: tried again.
      tookOverFrom ??= current;
      rmSync(file, { force: true });
    }
  }
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    // Only our own lock is removed (never one a later process took over).
    const current = readHolder(file);
    if (current?.pid === process.pid && current.started === holder.started) rmSync(file, { force: true });
    process.off('exit', release);
  };
  // Removed also when the process ends without reaching the caller's release.
  process.on('exit', release);
  return { file, tookOverFrom, release };
}
