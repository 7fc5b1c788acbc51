import type { Queryable } from '../db/driver.js';
import { type Catalog, type FieldDef, type TypeDef, USER_TYPE } from './catalog.js';

// `svc/created-by`: who created an entity, a to-one field to svc/user on every type of the
// workspace's users (every database of the service has one: its own n8n node reads it in its
// default output). Not on the built-in types (users, files, documents, comments) nor on the
// option types of single-selects. Set on creation to the user of the request (the app host's
// user, the admin, for synced rows); read-only, so a value given for it is ignored as the other
// read-only fields' are. The column has no foreign key: a key checked for every row of a bulk
// create would cost the database a look-up and a row lock on the user each time. A user deleted
// (svc.entity/delete on svc/user, which is rare) is let go of here instead: the entities it
// created are left without a creator, as a foreign key's ON DELETE SET NULL would leave them.

export const CREATED_BY = 'svc/created-by';
export const CREATED_BY_COLUMN = 'created_by';
/** Its meta as the service gives it: the default names the user asking (see MY_ID). */
export const CREATED_BY_META: Readonly<Record<string, unknown>> = {
  'svc/readonly?': true,
  'svc/default-value': { 'svc/id': '$my-id' },
};

/** Whether a type made with this meta gets svc/created-by. */
export const takesCreator = (meta: Record<string, unknown>, builtin: boolean): boolean =>
  !builtin && meta['svc/enum?'] !== true;

/** The type's svc/created-by when it has one (a workspace made before it existed may lack it). */
export function creatorField(type: TypeDef): FieldDef | undefined {
  const f = type.byName.get(CREATED_BY);
  return f?.storage.kind === 'column' ? f : undefined;
}

/**
 * Before users are deleted: the entities they created are left without a creator (nothing else
 * changes: no modification date, no effect, as for a relation whose target is deleted).
 */
export async function forgetCreators(
  tx: Queryable,
  catalog: Catalog,
  type: TypeDef,
  ids: readonly string[],
): Promise<void> {
  if (type.name !== USER_TYPE) return;
  for (const t of catalog.types) {
    if (!creatorField(t)) continue;
    await tx.query(
      `UPDATE ${t.table} SET ${CREATED_BY_COLUMN} = NULL WHERE ${CREATED_BY_COLUMN} = ANY($1::uuid[])`,
      [ids],
    );
  }
}
