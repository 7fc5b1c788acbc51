import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { CommandContext } from '../commands/context.js';
import { badRequest, conflict, forbidden, notFound } from '../errors.js';
import { isUuid } from './values.js';
import { addSpace, SPACE_FIELDS, type SpaceLooks, spaceOf, spaceTable } from './apps.js';
import { loadCatalog } from './catalog.js';

// The lifecycle of a space, in the commands the service's own page sends (captured from it and
// replayed with a token by a command-line client for the service, whose `space create` and
// `space delete` are built on them): svc.app/save then svc.app/install make a space,
// svc.app/update sets its colour and icon, svc.app/uninstall then svc.app/delete remove it.
// Here a space is the `svc/app` entity of a namespace (apps.ts); save makes one before any
// database is in it, as the page does.

const look = z.string().max(2000).nullable().optional();
/** A space's own fields a save or an update may give (SPACE_FIELDS). */
const Looks = {
  'svc/title': look,
  'svc/description': look,
  'svc/status': look,
  'svc/color': look,
  'svc/icon': look,
};
const Save = z.object({
  app: z.looseObject({
    'svc/id': z.string().optional(),
    'svc/name': z.string().min(1).max(200).optional(),
    'svc/namespace': z.string().min(1).max(200).optional(),
    ...Looks,
  }),
});
const Install = z.looseObject({ name: z.string().min(1).max(200) });
const ById = z.looseObject({ 'svc/id': z.string() });
const Update = z.looseObject({ 'svc/id': z.string(), ...Looks });

/** The space's own fields among `given`, those it gave only. */
const looksOf = (given: Record<string, unknown>): SpaceLooks =>
  Object.fromEntries(
    SPACE_FIELDS.map(([f]) => f)
      .filter((f) => given[f] !== undefined)
      .map((f) => [f, given[f] as string | null]),
  );

/** Sets a space's own fields that `looks` gives. */
async function setLooks(ctx: CommandContext, id: string, looks: SpaceLooks): Promise<void> {
  const { type, col } = spaceTable(await loadCatalog(ctx.tx));
  const fields = Object.keys(looks).filter((f) => type.byName.has(f));
  if (fields.length === 0) return;
  await ctx.tx.query(
    `UPDATE ${type.table} SET ${fields.map((f, i) => `${col(f)} = $${i + 2}`).join(', ')}, modified = clock_timestamp()
     WHERE id = $1::uuid`,
    [id, ...fields.map((f) => looks[f] ?? null)],
  );
}

function adminOnly(ctx: CommandContext): void {
  if (!ctx.user.admin) throw forbidden('Only an admin can change spaces');
}

/** The arguments as `schema` takes them, or a 400 naming the first one it does not. */
function parse<T>(schema: z.ZodType<T>, args: unknown, shape: string): T {
  const parsed = schema.safeParse(args);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
  throw badRequest(`args must be ${shape} (${where}${issue?.message ?? 'not readable'})`, 'invalid-args');
}

async function findSpace(ctx: CommandContext, by: 'id' | 'name', value: string) {
  const { type, col } = spaceTable(await loadCatalog(ctx.tx));
  const name = col('svc/name');
  const { rows } = await ctx.tx.query<{ id: string; name: string }>(
    `SELECT id::text AS id, ${name} AS name FROM ${type.table} WHERE ${by === 'id' ? 'id = $1::uuid' : `${name} = $1`}`,
    [value],
  );
  return rows[0];
}

/** svc.app/save: the space its namespace names (else its name), made when missing; answers it. */
export async function saveSpace(ctx: CommandContext, args: unknown) {
  adminOnly(ctx);
  const { app } = parse(Save, args, '{app: {svc/name or svc/namespace, svc/id?}}');
  const name = app['svc/namespace'] ?? app['svc/name'];
  if (!name) throw badRequest('app needs svc/namespace or svc/name', 'invalid-args');
  // A space is a namespace of the users' types: one of the service's own, or one a type name
  // could not hold, is none.
  if (name.includes('/') || spaceOf(`${name}/x`) === undefined)
    throw badRequest(`${JSON.stringify(name)} cannot name a space`, 'invalid-args');
  const looks = looksOf(app);
  const held = await findSpace(ctx, 'name', name);
  if (held) {
    // Saved again, as the page saves a space it changed: what it gives is set.
    await setLooks(ctx, held.id, looks);
    return { 'svc/id': held.id, 'svc/name': held.name };
  }
  const given = app['svc/id'];
  if (given !== undefined && !isUuid(given)) throw badRequest('app svc/id must be a uuid', 'invalid-args');
  const id = (given ?? randomUUID()).toLowerCase();
  if (await findSpace(ctx, 'id', id)) throw conflict(`A space with id ${id} exists`);
  await addSpace(ctx.tx, await loadCatalog(ctx.tx), name, id, looks);
  return { 'svc/id': id, 'svc/name': name };
}

/** svc.app/install: the space saved under `name` is there to use ("ok"). */
export async function installSpace(ctx: CommandContext, args: unknown) {
  adminOnly(ctx);
  const { name } = parse(Install, args, '{name, version?}');
  if (!(await findSpace(ctx, 'name', name))) throw notFound(`No space ${JSON.stringify(name)} was saved`);
  return 'ok';
}

/** The space `args` names by id, or 404. */
async function spaceById(ctx: CommandContext, args: unknown) {
  const { 'svc/id': id } = parse(ById, args, '{svc/id}');
  const space = isUuid(id) ? await findSpace(ctx, 'id', id.toLowerCase()) : undefined;
  if (!space) throw notFound(`No space ${id}`);
  return space;
}

/** svc.app/update: sets a space's title, description, status, colour or icon ("ok"). */
export async function updateSpace(ctx: CommandContext, args: unknown) {
  adminOnly(ctx);
  const given = parse(
    Update,
    args,
    '{svc/id, svc/title?, svc/description?, svc/status?, svc/color?, svc/icon?}',
  );
  const space = await spaceById(ctx, given);
  await setLooks(ctx, space.id, looksOf(given));
  return 'ok';
}

/** svc.app/uninstall: "ok" for a space there is (its databases stay until it is deleted). */
export async function uninstallSpace(ctx: CommandContext, args: unknown) {
  adminOnly(ctx);
  await spaceById(ctx, args);
  return 'ok';
}

/**
 * svc.app/delete: removes a space that holds no database. One that still holds some is refused
 * (409 not-empty): its databases and their entities go with schema.type/delete first, by name,
 * where the service would take them all at once. Its views go with it.
 */
export async function deleteSpace(ctx: CommandContext, args: unknown) {
  adminOnly(ctx);
  const space = await spaceById(ctx, args);
  const catalog = await loadCatalog(ctx.tx);
  const held = catalog.types.filter((t) => !t.builtin && spaceOf(t.name) === space.name).map((t) => t.name);
  if (held.length > 0)
    throw conflict(
      `Space ${space.name} still holds ${held.join(', ')}: delete them first (schema.type/delete)`,
      'not-empty',
    );
  const { type } = spaceTable(catalog);
  await ctx.tx.query(`DELETE FROM ${type.table} WHERE id = $1::uuid`, [space.id]);
  // Its views go with it, as with the service.
  await ctx.tx.query(`DELETE FROM svc_views WHERE container_app->>'svc/id' = $1`, [space.id]);
  return 'ok';
}
