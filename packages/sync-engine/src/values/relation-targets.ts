// A relation value as the service reads it, one reading for the app host and the conformance kit.

/** What a relation value was, when the service takes it only by coercing it. */
export type RelationCoercion =
  | 'many-to-many value sent as a JSON string'
  | 'many-to-many value sent as a single id'
  | 'to-one value sent as an array (first id kept)';

/**
 * A relation value as the target ids it names: an id, an array of ids, or (as the service takes
 * them) a JSON string of an array or a single id for a many-to-many relation, and for a to-one
 * relation an array of which the first id counts. An element `{id}` names its id.
 */
export function relationTargets(many: boolean, raw: unknown, note?: (c: RelationCoercion) => void): string[] {
  let value = raw;
  if (typeof value === 'string' && value.trimStart().startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(value);
      if (Array.isArray(parsed)) {
        value = parsed;
        note?.('many-to-many value sent as a JSON string');
      }
    } catch {
      // not JSON: an id that happens to start with "["
    }
  }
  const list = (Array.isArray(value) ? value : [value])
    .filter((v) => v !== null && v !== undefined && v !== '')
    .map((v) => String(typeof v === 'object' && v !== null && 'id' in v ? (v as { id: unknown }).id : v));
  if (many) {
    if (!Array.isArray(value) && list.length > 0) note?.('many-to-many value sent as a single id');
    return list;
  }
  if (!Array.isArray(raw)) return list;
  note?.('to-one value sent as an array (first id kept)');
  return list.slice(0, 1);
}
