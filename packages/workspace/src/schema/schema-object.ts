import { createHash } from 'node:crypto';
import type { Principal } from '../auth/principal.js';
import { type Catalog, PRIMITIVE_TYPES } from './catalog.js';

/** A fixed uuid for a primitive type (they are not stored): from its name, the same everywhere. */
const primitiveId = (name: string) => {
  const h = createHash('sha256').update(`weft primitive type ${name}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
};
const PRIMITIVE_IDS = new Map(PRIMITIVE_TYPES.map((t) => [t, primitiveId(t)]));
const PLATFORM = { 'svc/platform?': true } as const;

/**
 * The Schema object svc.schema/query (and GET /api/schema) returns. Every type and field says
 * `svc/deleted?` false, as the service's do: its clients drop what is soft-deleted, and nothing
 * here ever is. The primitive types come last, as types with `svc/primitive? true` and no fields
 * (the spec's "appears in schema output"): the service's n8n node looks up the type of every
 * field, primitive or not. The service's own types, primitive or not, carry `svc/platform? true`:
 * clients tell the users' databases from them by it (a launcher plugin reads the title field of
 * every type without it).
 */
export function schemaObject(catalog: Catalog, _user: Principal, withDescription: boolean) {
  return {
    'svc/id': catalog.schemaId,
    'svc/types': [
      ...catalog.types.map((t) => ({
        'svc/name': t.name,
        'svc/id': t.id,
        ...(withDescription ? { 'svc/description': t.description } : {}),
        'svc/meta': t.builtin ? { ...t.meta, ...PLATFORM } : t.meta,
        'svc/deleted?': false,
        'svc/fields': t.fields.map((f) => ({
          'svc/name': f.name,
          'svc/type': catalog.fieldTypeName(f),
          'svc/meta': f.meta,
          'svc/id': f.id,
          'svc/deleted?': false,
        })),
      })),
      ...PRIMITIVE_TYPES.map((name) => ({
        'svc/name': name,
        'svc/id': PRIMITIVE_IDS.get(name)!,
        ...(withDescription ? { 'svc/description': null } : {}),
        'svc/meta': { 'svc/primitive?': true, ...PLATFORM },
        'svc/deleted?': false,
        'svc/fields': [],
      })),
    ],
    'svc/meta': {
      'svc/version': catalog.version,
      'svc/rel-version': catalog.version,
      'svc/maintenance?': false,
      'maintenance?': false,
    },
  };
}
