import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/driver.js';
import type { Catalog } from './catalog.js';
import { RESERVED_NAMESPACES } from './reserved-namespaces.js';

// The workspace's spaces, which the service's data API calls apps: one `svc/app` entity per
// namespace the users' types use (`Tasks` for `Tasks/Task`), named by it. Clients list them
// (`q/from: "svc/app"`) to find a space's id, and attach views to one (`svc/container-app`).
// A space's entity is made with its first type and is never removed with its types.

export const APP_TYPE = 'svc/app';

/** The space a type belongs to: its namespace, unless that is one of the service's own. */
export function spaceOf(typeName: string): string | undefined {
  const slash = typeName.indexOf('/');
  if (slash <= 0) return undefined;
  const space = typeName.slice(0, slash);
  return RESERVED_NAMESPACES.has(space.toLowerCase()) ? undefined : space;
}

/** Makes the `svc/app` entities missing for the spaces of `typeNames`. */
export async function ensureApps(
  tx: Queryable,
  catalog: Catalog,
  typeNames: Iterable<string>,
): Promise<void> {
  const app = catalog.findType(APP_TYPE);
  // A workspace whose built-in types predate spaces: its next start makes the type, and the spaces.
  if (!app) return;
  const wanted = [...new Set([...typeNames].map(spaceOf).filter((s): s is string => s !== undefined))];
  if (wanted.length === 0) return;
  const col = (catalog.field(app, 'svc/name').storage as { col: string }).col;
  const { rows } = await tx.query<{ name: string }>(
    `SELECT ${col} AS name FROM ${app.table} WHERE ${col} = ANY($1::text[])`,
    [wanted],
  );
  const have = new Set(rows.map((r) => r.name));
  for (const name of wanted) if (!have.has(name)) await addSpace(tx, catalog, name, randomUUID());
}

/** Makes the `svc/app` entity of the space `name`, with the id given (the caller checked both are free). */
export async function addSpace(tx: Queryable, catalog: Catalog, name: string, id: string): Promise<void> {
  const app = catalog.type(APP_TYPE);
  const col = (catalog.field(app, 'svc/name').storage as { col: string }).col;
  const { rows: ids } = await tx.query<{ n: string }>(
    `UPDATE svc_types SET next_public_id = next_public_id + 1 WHERE id = $1
      RETURNING (next_public_id - 1)::text AS n`,
    [app.id],
  );
  await tx.query(`INSERT INTO ${app.table} (id, public_id, ${col}) VALUES ($1, $2, $3)`, [
    id,
    ids[0]?.n ?? '1',
    name,
  ]);
}
