import { canAccessField, type Principal } from '../auth/principal.js';
import type { Queryable } from '../db/driver.js';
import { forbidden } from '../errors.js';
import { type Catalog, DOCUMENT_SECRET, DOCUMENT_TYPE, loadCatalog } from '../schema/catalog.js';

// A rich-text document inherits access from the entity that holds it: a user who may not see the
// rich-text field (a secured field of a secured type, for a non-admin) may not read or write its
// document either, even knowing the secret.

/** SQL conditions, one per closed rich-text field, true when document `d` is held by that field. */
export function closedDocumentHolders(catalog: Catalog, user: Principal, d: string): string[] {
  if (user.admin) return [];
  const out: string[] = [];
  for (const type of catalog.types) {
    for (const f of type.fields) {
      if (f.storage.kind !== 'column' || canAccessField(user, type, f) || !catalog.isRichText(f)) continue;
      out.push(`EXISTS (SELECT 1 FROM ${type.table} o WHERE o.${f.storage.col} = ${d}.id)`);
    }
  }
  return out;
}

/** Refuses (403) when any of `secrets` names a document held by a field closed to `user`. */
export async function assertDocumentAccess(
  q: Queryable,
  user: Principal,
  secrets: readonly string[],
): Promise<void> {
  if (user.admin || secrets.length === 0) return;
  const catalog = await loadCatalog(q);
  const holders = closedDocumentHolders(catalog, user, 'd');
  const doc = catalog.findType(DOCUMENT_TYPE);
  const secret = doc?.byName.get(DOCUMENT_SECRET);
  if (holders.length === 0 || !doc || secret?.storage.kind !== 'column') return;
  const { rows } = await q.query(
    `SELECT 1 FROM ${doc.table} d WHERE d.${secret.storage.col} = ANY($1::uuid[]) AND (${holders.join(' OR ')}) LIMIT 1`,
    [secrets],
  );
  if (rows.length > 0) throw forbidden('No permission for this document');
}
