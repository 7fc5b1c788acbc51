import v8 from 'node:v8';

// A kit run allocates a page's rows, checks them and drops them, page after page, while what it
// keeps is small (hashes, a few sample rows). V8 sizes old space for throughput instead, letting
// it grow to up to four times the live heap before collecting it: at a million rows that was
// 60-90 MB of old space for a live heap of 20-40 MB, most of the kit's peak resident size above
// what loading it takes. Capping the growth factor (V8's --heap-growing-percent, read each time
// V8 sets its next limit, so it takes effect when set at run time) keeps old space near the live
// heap: the cap the workspace sets on PGlite for the same reason. It is process-wide, so it is
// never set over a value the process was started with.

/** Old space grows by half the live heap at most (V8's default is up to four times). */
export const HEAP_GROWING_PERCENT = 50;

/** The flag to set in a process started with `startedWith` (its exec arguments and NODE_OPTIONS). */
export function heapFlag(startedWith: readonly string[]): string | undefined {
  if (startedWith.some((arg) => /heap[-_]growing[-_]percent/.test(arg))) return undefined;
  return `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
}

/** Applies heapFlag to this process. */
export function boundHeap(): void {
  const flag = heapFlag([...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)]);
  if (flag) v8.setFlagsFromString(flag);
}
