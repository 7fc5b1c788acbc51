// How a sync run synced, told truthfully wherever runs are shown (weft dev's lines, the page): a
// run is `full` when any type was, so a run with types of both modes names which were which.

export interface RunModes {
  mode?: string | null | undefined;
  /** why the run was made full (schema-fingerprint.ts) */
  fullReason?: string | null | undefined;
  /** each type's mode as the app's first page of it answered */
  typeModes?: Record<string, string> | undefined;
}

/** `delta`, `full`, `full: <why>`, or `full for a, b; delta for c`; undefined before any page. */
export function runModeLabel(run: RunModes): string | undefined {
  if (run.mode === 'delta') return 'delta';
  if (run.fullReason) return `full: ${run.fullReason}`;
  const modes = Object.entries(run.typeModes ?? {});
  const delta = modes.filter(([, m]) => m === 'delta').map(([t]) => t);
  if (delta.length === 0) return run.mode ? 'full' : undefined;
  const full = modes.filter(([, m]) => m !== 'delta').map(([t]) => t);
  return `full for ${full.join(', ')}; delta for ${delta.join(', ')}`;
}
