import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/driver.js';
import type { Catalog } from './catalog.js';
import { RESERVED_NAMESPACES } from './reserved-namespaces.js';

// The workspace's spaces, which the service's data API calls apps: one `svc/app` entity per
// namespace the users' types use (`Tasks` for `Tasks/Task`), named by it. Clients list them
// (`q/from: "svc/app"`) to find a space's id, and attach views to one (`svc/container-app`).
// A space's entity is made with its first type and is never removed with its types.

export const APP_TYPE = 'svc/app';

/**
 * A space's own fields beside its name, as the service's page lists its spaces (`q/from`
 * `fibery/app` selecting `fibery/title`, `fibery/status`, `fibery/color`, `fibery/icon`) and saves
 * one (`svc.app/save`, with its description too). A space made with its first type has its name
 * as its title and is installed.
 */
export const SPACE_FIELDS: ReadonlyArray<[string, string]> = [
  ['svc/title', 'svc/text'],
  ['svc/description', 'svc/text'],
  ['svc/status', 'svc/text'],
  ['svc/color', 'svc/color'],
  ['svc/icon', 'svc/text'],
];
export const INSTALLED = 'app/installed';

/** What a space says of itself beside its name, each key one of SPACE_FIELDS. */
export type SpaceLooks = Partial<Record<string, string | null>>;

/** The spaces' table: the `svc/app` type and the column of one of its fields. */
export function spaceTable(catalog: Catalog) {
  const type = catalog.type(APP_TYPE);
  return { type, col: (field: string) => (catalog.field(type, field).storage as { col: string }).col };
}

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
  // A workspace whose built-in types predate spaces: its next start makes the type, and the spaces.
  if (!catalog.findType(APP_TYPE)) return;
  const wanted = [...new Set([...typeNames].map(spaceOf).filter((s): s is string => s !== undefined))];
  if (wanted.length === 0) return;
  const { type: app, col } = spaceTable(catalog);
  const { rows } = await tx.query<{ name: string }>(
    `SELECT ${col('svc/name')} AS name FROM ${app.table} WHERE ${col('svc/name')} = ANY($1::text[])`,
    [wanted],
  );
  const have = new Set(rows.map((r) => r.name));
  for (const name of wanted) if (!have.has(name)) await addSpace(tx, catalog, name, randomUUID());
}

/**
 * Makes the `svc/app` entity of the space `name`, with the id given (the caller checked both are
 * free): titled by its name and installed, unless `looks` says otherwise.
 */
export async function addSpace(
  tx: Queryable,
  catalog: Catalog,
  name: string,
  id: string,
  looks: SpaceLooks = {},
): Promise<void> {
  const { type: app, col } = spaceTable(catalog);
  const { rows: ids } = await tx.query<{ n: string }>(
    `UPDATE svc_types SET next_public_id = next_public_id + 1 WHERE id = $1
      RETURNING (next_public_id - 1)::text AS n`,
    [app.id],
  );
  const values: Record<string, string | null> = {
    'svc/title': name,
    'svc/status': INSTALLED,
    ...Object.fromEntries(Object.entries(looks).filter(([, v]) => v !== undefined)),
  };
  // A workspace whose space type predates these fields gets them at its next start.
  const fields = SPACE_FIELDS.map(([f]) => f).filter((f) => app.byName.has(f) && f in values);
  await tx.query(
    `INSERT INTO ${app.table} (id, public_id, ${['svc/name', ...fields].map(col).join(', ')})
     VALUES ($1, $2, $3${fields.map((_, i) => `, $${i + 4}`).join('')})`,
    [id, ids[0]?.n ?? '1', name, ...fields.map((f) => values[f] ?? null)],
  );
}
