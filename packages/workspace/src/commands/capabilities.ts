import { z } from 'zod';
import type { Principal } from '../auth/principal.js';
import { badRequest } from '../errors.js';
import { APP_TYPE, spaceTable } from '../schema/apps.js';
import { type Catalog, loadCatalog, type TypeDef } from '../schema/catalog.js';
import type { CommandContext } from './context.js';

// What the user asking may do, in the commands the service's own clients ask it with. Its web
// extension lists the databases a user may add entities to with svc.type/query-user-capabilities
// (`{capabilities: ["entity.create"]}`, answered `{<type>: [<capability>, …]}`, each type the user
// has one of them on) and groups them by space; its earlier version, and scripts for the service,
// listed the spaces with svc.app/get-available-apps (`[{app-id, app-namespace, access}]`). Here
// every user may read, create, change and delete the entities of the users' databases (only
// secured fields are closed), and an admin configures spaces: the answers say so.

/** The capabilities a user has on a database: all of them, on every database of the users'. */
const CAPABILITIES = ['entity.read', 'entity.create', 'entity.update', 'entity.delete'] as const;

const TypeCapabilitiesArgs = z.object({
  capabilities: z.array(z.string().max(200)).max(100).optional(),
});

/** The users' databases: the types a space holds (not options, not the service's own types). */
function databases(catalog: Catalog): TypeDef[] {
  return catalog.types.filter(
    (t) => !t.builtin && t.meta['svc/domain?'] === true && t.meta['svc/enum?'] !== true,
  );
}

/** svc.type/query-user-capabilities: per database, the capabilities asked for that the user has. */
export async function typeCapabilities(
  ctx: CommandContext,
  args: unknown,
): Promise<Record<string, string[]>> {
  const parsed = TypeCapabilitiesArgs.safeParse(args);
  if (!parsed.success)
    throw badRequest(
      'capabilities must be a list of capability names, e.g. ["entity.create"]',
      'invalid-args',
    );
  const asked = parsed.data.capabilities ?? [...CAPABILITIES];
  const held = asked.filter((c): c is (typeof CAPABILITIES)[number] =>
    (CAPABILITIES as readonly string[]).includes(c),
  );
  const out: Record<string, string[]> = {};
  if (held.length === 0) return out;
  for (const t of databases(await loadCatalog(ctx.tx))) out[t.name] = [...new Set(held)];
  return out;
}

/** The service's access level of a user in a space: an admin configures it, anyone else edits it. */
const accessOf = (user: Principal) => (user.admin ? 'access/type.creator' : 'access/type.editor');

/** svc.app/get-available-apps: the spaces, with the user's access to each. */
export async function availableApps(ctx: CommandContext): Promise<Record<string, string>[]> {
  const catalog = await loadCatalog(ctx.tx);
  if (!catalog.findType(APP_TYPE)) return [];
  const { type, col } = spaceTable(catalog);
  const { rows } = await ctx.tx.query<{ id: string; name: string }>(
    `SELECT id::text AS id, ${col('svc/name')} AS name FROM ${type.table} ORDER BY ${col('svc/name')}`,
  );
  const access = accessOf(ctx.user);
  return rows.map((r) => ({ 'app-id': r.id, 'app-namespace': r.name, access }));
}
