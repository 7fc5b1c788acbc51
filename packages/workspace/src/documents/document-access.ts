import { canAccessField, type Principal } from '../auth/principal.js';
import type { Queryable } from '../db/driver.js';
import { forbidden } from '../errors.js';
import { COMMENT_TYPE, FILE_TYPE } from '../schema/builtins.js';
import {
  type Catalog,
  DOCUMENT_SECRET,
  DOCUMENT_TYPE,
  loadCatalog,
  type TypeDef,
} from '../schema/catalog.js';

// Held content inherits access from the entities that hold it: a rich-text document, a comment or
// a file reached through a field closed to the user (a secured field of a secured type, or its
// relation partner, for a non-admin) is closed too, however it is reached: by its secret (the
// document and file endpoints), or by querying its type directly. Held by an open field as well
// does not reopen it: one closed holder is enough.

/** The types whose entities are held content, each with the field holding its secret. */
const HELD: ReadonlyMap<string, string> = new Map([
  [DOCUMENT_TYPE, DOCUMENT_SECRET],
  [COMMENT_TYPE, 'comment/document-secret'],
  [FILE_TYPE, 'svc/secret'],
]);

/**
 * SQL conditions, one per field closed to `user` that holds entities of `held`, each true when
 * entity `x` (an alias of held's table) is held by that field. Empty for an admin, and for a type
 * that is not held content.
 */
export function closedHolders(catalog: Catalog, user: Principal, held: TypeDef, x: string): string[] {
  if (user.admin || !HELD.has(held.name)) return [];
  const out: string[] = [];
  for (const type of catalog.types) {
    for (const f of type.fields) {
      if (f.targetTypeId !== held.id || canAccessField(user, type, f)) continue;
      const s = f.storage;
      if (s.kind === 'column') out.push(`EXISTS (SELECT 1 FROM ${type.table} o WHERE o.${s.col} = ${x}.id)`);
      else if (s.kind === 'join')
        out.push(`EXISTS (SELECT 1 FROM ${s.table} j WHERE j.${s.other} = ${x}.id)`);
      else {
        const partner = catalog.fieldById(s.partner);
        if (partner?.storage.kind === 'column') out.push(`${x}.${partner.storage.col} IS NOT NULL`);
      }
    }
  }
  return out;
}

/** Whether `user` may see every entity of `type` (false for held content with a closed holder). */
export function canReadAllOf(catalog: Catalog, user: Principal, type: TypeDef): boolean {
  return closedHolders(catalog, user, type, 'x').length === 0;
}

/** Refuses (403) when any of `secrets` names an entity of `typeName` held by a field closed to `user`. */
async function assertHeldAccess(
  q: Queryable,
  catalog: Catalog,
  user: Principal,
  typeName: string,
  secrets: readonly string[],
  what: string,
): Promise<void> {
  const type = catalog.findType(typeName);
  const secret = type?.byName.get(HELD.get(typeName)!);
  if (!type || secret?.storage.kind !== 'column') return;
  const holders = closedHolders(catalog, user, type, 'd');
  if (holders.length === 0) return;
  const { rows } = await q.query(
    `SELECT 1 FROM ${type.table} d WHERE d.${secret.storage.col} = ANY($1::uuid[]) AND (${holders.join(' OR ')}) LIMIT 1`,
    [secrets],
  );
  if (rows.length > 0) throw forbidden(`No permission for this ${what}`);
}

/** Refuses (403) when any of `secrets` names a document or comment held by a field closed to `user`. */
export async function assertDocumentAccess(
  q: Queryable,
  user: Principal,
  secrets: readonly string[],
): Promise<void> {
  if (user.admin || secrets.length === 0) return;
  const catalog = await loadCatalog(q);
  await assertHeldAccess(q, catalog, user, DOCUMENT_TYPE, secrets, 'document');
  await assertHeldAccess(q, catalog, user, COMMENT_TYPE, secrets, 'document');
}

/** Refuses (403) when the file with this secret is held by a field closed to `user`. */
export async function assertFileAccess(q: Queryable, user: Principal, secret: string): Promise<void> {
  if (user.admin) return;
  await assertHeldAccess(q, await loadCatalog(q), user, FILE_TYPE, [secret], 'file');
}
