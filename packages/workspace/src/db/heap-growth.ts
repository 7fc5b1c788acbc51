import v8 from 'node:v8';

// A workspace on PGlite runs the database in its own process. The data a long write allocates
// (parsed requests or synced rows, entities, statements) dies young, but part of it is promoted to
// V8's old space before it dies, and V8 lets old space grow to up to four times the live heap
// before it collects it: over a million rows, written through the data API or synced by the app
// host, that is 100+ MB of garbage on top of PGlite's own memory, and the peak resident size then
// depends on where the collections happen to fall (measured 380-530 MB).
// Capping the growth factor (V8's --heap-growing-percent, read each time V8 sets its next limit,
// so it takes effect when set at run time) keeps old space near the live heap for a few more
// collections of a ~40 MB live heap. It is process-wide, so it is set only for PGlite, and never
// over a value the process was started with.

/** The V8 flag to set for a workspace on this engine, or undefined to leave V8's heuristics alone. */
export function heapGrowthFlag(
  engine: 'pglite' | 'postgres',
  percent: number | undefined,
  startedWith: readonly string[],
): string | undefined {
  const wanted = percent ?? (engine === 'pglite' ? DEFAULT_PGLITE_PERCENT : 0);
  if (!(wanted > 0)) return undefined;
  if (startedWith.some((a) => /heap[-_]growing[-_]percent/.test(a))) return undefined;
  return `--heap-growing-percent=${Math.round(wanted)}`;
}

/** The growth factor 1.5 instead of up to 4: measured on the host-sync bench (docs/dev.md). */
export const DEFAULT_PGLITE_PERCENT = 50;

/** Applies heapGrowthFlag to this process. */
export function capHeapGrowth(engine: 'pglite' | 'postgres', percent?: number): void {
  const flag = heapGrowthFlag(engine, percent, [
    ...process.execArgv,
    ...(process.env.NODE_OPTIONS ?? '').split(/\s+/),
  ]);
  if (flag) v8.setFlagsFromString(flag);
}
