import v8 from 'node:v8';

// A process that streams rows (the kit checking a sync, a workspace writing one) allocates a
// page's rows, uses them and drops them, page after page, while what it keeps is small. V8 sizes
// its heap for throughput instead:
// - old space may grow to up to four times the live heap before it is collected (100+ MB of
//   garbage over a million rows on top of a live heap of 20-40 MB);
// - the young generation grows from 1 MB to 16 MB a semi-space once many objects survive a
//   scavenge, as a page's rows do while the page is checked: 32 MB resident for pages that are
//   dropped a moment later.
// Both flags are read when V8 next sizes the space, so they take effect when set at run time.
// They are process-wide: each caller asks only for what it measured, and a value the process was
// started with (its command line or NODE_OPTIONS) always wins.

export interface HeapBounds {
  /** Old space grows by at most this percent of the live heap (V8's up to 400); 0 or absent: V8's sizing. */
  growingPercent?: number;
  /** The young generation grows by this factor (V8's 2); 1 keeps it at its first size; absent: V8's sizing. */
  semiSpaceGrowthFactor?: number;
}

/** The V8 flags for `bounds` in a process started with `startedWith` (exec arguments and NODE_OPTIONS). */
export function heapBoundFlags(bounds: HeapBounds, startedWith: readonly string[]): string[] {
  const given = (pattern: RegExp) => startedWith.some((arg) => pattern.test(arg));
  const flags: string[] = [];
  const percent = bounds.growingPercent;
  if (percent !== undefined && percent > 0 && !given(/heap[-_]growing[-_]percent/))
    flags.push(`--heap-growing-percent=${Math.round(percent)}`);
  const factor = bounds.semiSpaceGrowthFactor;
  // Any semi-space setting on the command line is a choice about the young generation: keep it.
  if (factor !== undefined && factor >= 1 && !given(/semi[-_]space/))
    flags.push(`--semi-space-growth-factor=${Math.round(factor)}`);
  return flags;
}

/** Applies heapBoundFlags to this process. */
export function boundHeap(bounds: HeapBounds): void {
  const startedWith = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  for (const flag of heapBoundFlags(bounds, startedWith)) v8.setFlagsFromString(flag);
}
