import type { MappedType } from './schema-mapping.js';

// The order a run's types are handed to the page workers: a type before the types whose rows point
// at it. A row written after the rows it points at gets its relation in the same write; one written
// before them has the link recorded and set at the end of the run, one row at a time. Where page
// jobs run one at a time (weft dev on PGlite, whose one thread does every write anyway), this order
// makes those links the exception.

/**
 * `types` (app type ids) reordered so that relation targets come before the types relating to
 * them, the given order kept otherwise (and for types in a cycle).
 */
export function relationOrder(types: readonly string[], mapped: readonly MappedType[]): string[] {
  const targets = new Map<string, Set<string>>();
  for (const t of mapped)
    targets.set(
      t.appType,
      new Set(
        t.fields.flatMap((f) =>
          f.kind === 'relation' && !f.toUsers && f.targetAppType !== t.appType ? [f.targetAppType] : [],
        ),
      ),
    );
  const placed = new Set<string>();
  const out: string[] = [];
  const visiting = new Set<string>();
  const place = (type: string) => {
    if (placed.has(type) || visiting.has(type)) return;
    visiting.add(type);
    for (const target of targets.get(type) ?? []) if (types.includes(target)) place(target);
    visiting.delete(type);
    placed.add(type);
    out.push(type);
  };
  for (const type of types) place(type);
  return out;
}
