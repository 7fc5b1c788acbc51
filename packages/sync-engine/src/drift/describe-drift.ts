import { hasDrift, type TypeDrift } from './drift-check.js';

const ids = (samples: { id: string }[], count: number): string => {
  const shown = samples.map((s) => `'${s.id}'`).join(', ');
  return count > samples.length ? `${shown}, …` : shown;
};

/**
 * One line per type that drifted, for reports: what the delta never removed, never added, never
 * updated, with a few ids (and the fields that differ). `by`: what kept the state (the host's
 * Verify says "the syncs": full, delta and webhook events alike).
 */
export function describeDrift(drift: TypeDrift, by = 'the delta'): string {
  if (!hasDrift(drift)) return `${drift.type}: no drift (${drift.rows} rows)`;
  const parts: string[] = [];
  const { samples } = drift;
  if (drift.extra)
    parts.push(`${drift.extra} extra (${by} never removed them: ${ids(samples.extra, drift.extra)})`);
  if (drift.missing)
    parts.push(`${drift.missing} missing (${by} never added them: ${ids(samples.missing, drift.missing)})`);
  if (drift.changed) {
    const shown = samples.changed.map((s) => `'${s.id}' ${(s.fields ?? []).join(', ')}`).join('; ');
    parts.push(
      `${drift.changed} changed (${by} never updated them: ${shown}${drift.changed > samples.changed.length ? '; …' : ''})`,
    );
  }
  return `${drift.type}: ${parts.join('; ')}`;
}
