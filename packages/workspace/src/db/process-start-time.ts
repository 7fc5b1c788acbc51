import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

// When a process started, as a string that stays the same for the life of that process and
// differs for a later process given the same pid. Linux: the boot's id and the start time in clock
// ticks since boot from /proc (no process spawned); elsewhere (macOS, the BSDs) `ps -o lstart=`.
// Undefined when neither can tell (Windows, a gone process).

/**
 * The fields of /proc/<pid>/stat after the command name (which is in parentheses and may hold
 * spaces): field n of the line is at n - 3 here. Undefined where there is no such file.
 */
export function procStatFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

function fromProc(pid: number): string | undefined {
  const fields = procStatFields(pid);
  if (!fields) return undefined;
  try {
    // The start time is field 22 of the line.
    const ticks = fields[19];
    if (!ticks || !/^\d+$/.test(ticks)) return undefined;
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    return `linux:${boot}:${ticks}`;
  } catch {
    return undefined;
  }
}

function fromPs(pid: number): string | undefined {
  try {
    const out = execFileSync('ps', ['-o', 'lstart=', '-p', String(pid)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5000,
    }).trim();
    return out ? `ps:${out}` : undefined;
  } catch {
    return undefined;
  }
}

/** True when a process has this pid (it may be a later process than the one meant: see above). */
export function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function processStartTime(pid: number): string | undefined {
  if (process.platform === 'win32') return undefined;
  return process.platform === 'linux' ? fromProc(pid) : fromPs(pid);
}
