// CPU time of the whole machine and of one process, from Linux's /proc, for benches whose work
// is spread over several processes (the workspace, an app, a database server): on a machine with
// few cores, what a comparison measures in wall time is often what it costs in CPU altogether.
// Both read undefined where /proc is not there. /proc counts in clock ticks (USER_HZ, 100 a second
// on Linux), so a figure is exact to 10 ms.
import { readFileSync } from 'node:fs';
import { procStatFields } from '../src/db/process-start-time.js';

const TICK_MS = 10;

/** CPU time every core has spent on anything but idling and waiting for I/O since boot, in ms. */
export function machineCpuMs(): number | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] as string;
    // cpu  user nice system idle iowait irq softirq steal ...
    const [user, nice, system, , , irq, softirq] = line.trim().split(/\s+/).slice(1).map(Number);
    return ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0)) * TICK_MS;
  } catch {
    return undefined;
  }
}

/** CPU time (user and system, all threads) the process `pid` has spent so far, in ms. */
export function processCpuMs(pid: number): number | undefined {
  const fields = procStatFields(pid);
  // utime and stime: fields 14 and 15 of the line.
  return fields ? (Number(fields[11]) + Number(fields[12])) * TICK_MS : undefined;
}
