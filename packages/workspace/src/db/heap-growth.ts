import { boundHeap, type HeapBounds } from '@weft/sync-engine';

// A workspace on PGlite runs the database in its own process. The data a long write allocates
// (parsed requests or synced rows, entities, statements) dies young, but part of it is promoted to
// V8's old space before it dies, and V8 lets old space grow to up to four times the live heap
// before it collects it: over a million rows, written through the data API or synced by the app
// host, that is 100+ MB of garbage on top of PGlite's own memory, and the peak resident size then
// depends on where the collections happen to fall (measured 380-530 MB). Capping the growth
// factor keeps old space near the live heap for a few more collections of a ~40 MB live heap.
// The cap is process-wide (see the sync engine's heap bounds), so it is set only for PGlite.

/** The growth factor 1.5 instead of up to 4: measured on the host-sync bench (docs/dev.md). */
export const DEFAULT_PGLITE_PERCENT = 50;

/** The heap bounds of a workspace on this engine (`percent` 0: V8's sizing). */
export function heapBoundsFor(engine: 'pglite' | 'postgres', percent: number | undefined): HeapBounds {
  return { growingPercent: percent ?? (engine === 'pglite' ? DEFAULT_PGLITE_PERCENT : 0) };
}

/** Applies heapBoundsFor to this process. */
export function capHeapGrowth(engine: 'pglite' | 'postgres', percent?: number): void {
  boundHeap(heapBoundsFor(engine, percent));
}
