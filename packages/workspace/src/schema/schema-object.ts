import type { Principal } from '../auth/principal.js';
import type { Catalog } from './catalog.js';

/**
 * The Schema object svc.schema/query (and GET /api/schema) returns. Every type and field says
 * `svc/deleted?` false, as the service's do: its clients drop what is soft-deleted, and nothing
 * here ever is.
 */
export function schemaObject(catalog: Catalog, _user: Principal, withDescription: boolean) {
  return {
    'svc/id': catalog.schemaId,
    'svc/types': catalog.types.map((t) => ({
      'svc/name': t.name,
      'svc/id': t.id,
      ...(withDescription ? { 'svc/description': t.description } : {}),
      'svc/meta': t.meta,
      'svc/deleted?': false,
      'svc/fields': t.fields.map((f) => ({
        'svc/name': f.name,
        'svc/type': catalog.fieldTypeName(f),
        'svc/meta': f.meta,
        'svc/id': f.id,
        'svc/deleted?': false,
      })),
    })),
    'svc/meta': {
      'svc/version': catalog.version,
      'svc/rel-version': catalog.version,
      'svc/maintenance?': false,
      'maintenance?': false,
    },
  };
}
