import { hasDrift, type TypeDrift } from './drift-check.js';

const ids = (samples: { id: string }[], count: number): string => {
  const shown = samples.map((s) => `'${s.id}'`).join(', ');
  return count > samples.length ? `${shown}, …` : shown;
};

/**
 * One line per type that drifted, for reports: what the delta never removed, never added, never
 * updated, with a few ids (and the fields that differ).
 */
export function describeDrift(drift: TypeDrift): string {
  if (!hasDrift(drift)) return `${drift.type}: no drift (${drift.rows} rows)`;
  const parts: string[] = [];
  const { samples } = drift;
  if (drift.extra)
    parts.push(`${drift.extra} extra (the delta never removed them: ${ids(samples.extra, drift.extra)})`);
  if (drift.missing)
    parts.push(
      `${drift.missing} missing (the delta never added them: ${ids(samples.missing, drift.missing)})`,
    );
  if (drift.changed) {
    const shown = samples.changed.map((s) => `'${s.id}' ${(s.fields ?? []).join(', ')}`).join('; ');
    parts.push(
      `${drift.changed} changed (the delta never updated them: ${shown}${drift.changed > samples.changed.length ? '; …' : ''})`,
    );
  }
  return `${drift.type}: ${parts.join('; ')}`;
}
