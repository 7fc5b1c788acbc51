// The order the test files start in: longest first (from a committed table of durations), so the
// longest files do not start late and end the run with one worker idle while they finish. Files
// the table does not know yet count as a median file.

/** Seconds each test file took, keyed `project:path` as vitest names them (durations.json). */
export type Durations = Record<string, number>;

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** `keys` longest first by `durations`; ties (and unknown files among themselves) keep their order. */
export function slowestFirst(keys: readonly string[], durations: Durations): string[] {
  const typical = median(Object.values(durations));
  const seconds = (key: string) => durations[key] ?? typical;
  return keys
    .map((key, i) => ({ key, i, s: seconds(key) }))
    .sort((a, b) => b.s - a.s || a.i - b.i)
    .map((e) => e.key);
}

/**
 * The table refreshed with vitest's own results of the last runs (`project:path` →
 * milliseconds): files that ran take their new duration (failed runs are left out: they may have
 * stopped early), files no longer in `present` are dropped.
 */
export function refreshed(
  table: Durations,
  results: Iterable<[string, { duration: number; failed: boolean }]>,
  present: (key: string) => boolean,
): Durations {
  const next: Durations = { ...table };
  for (const [key, r] of results)
    if (!r.failed && r.duration > 0) next[key] = Math.round(r.duration / 100) / 10;
  return Object.fromEntries(
    Object.entries(next)
      .filter(([key]) => present(key))
      .sort(([ka, a], [kb, b]) => b - a || (ka < kb ? -1 : 1)),
  );
}
