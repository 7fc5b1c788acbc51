import { badRequest, notFound } from '../errors.js';
import type { Catalog, TypeDef } from '../schema/catalog.js';
import { isUuid } from '../schema/values.js';
import { type CommandContext, RunAgainOneByOne } from '../commands/context.js';
import { checkRun, oneAtATime, refusedValue } from './command-runs.js';
import { isObject } from './entity-store.js';
import { forgetCreators } from '../schema/created-by.js';
import { deleteOwnedContent } from './owned-content.js';

// svc.entity/delete, one entity at a time or a run of them (consecutive deletes of one type in a
// batch, as a full sync removes the rows its app no longer sends). A run is two statements: what
// the entities own (rich-text documents, comments), then the entities. One at a time it was three
// round trips an entity. Both ways answer, record effects and fail alike: a run in which an entity
// is missing (or named twice) is run again one delete at a time (RunAgainOneByOne), so the failure
// reported is the first in order.

/** The entity's id, as the database prints it (effects name the entity as every answer does). */
function idOf(entity: unknown): string {
  const id = isObject(entity) ? entity['svc/id'] : undefined;
  if (!isUuid(id)) throw badRequest('entity must be {"svc/id": <uuid>}', 'invalid-args');
  return id.toLowerCase();
}

async function deleteOne(ctx: CommandContext, catalog: Catalog, type: TypeDef, id: string) {
  // Rich-text documents and comments belong to their entity: they go with it.
  await deleteOwnedContent(ctx.tx, catalog, type, [id]);
  await forgetCreators(ctx.tx, catalog, type, [id]);
  const { rowCount } = await ctx.tx.query(`DELETE FROM ${type.table} WHERE id = $1`, [id]);
  if (rowCount === 0) throw notFound(`${type.name} ${id} does not exist`);
  ctx.effects.push({ effect: 'svc.entity/delete', id, type: type.name });
  return 'ok';
}

export async function deleteEntity(
  ctx: CommandContext,
  catalog: Catalog,
  typeName: unknown,
  entity: unknown,
) {
  const type = catalog.type(typeName);
  return deleteOne(ctx, catalog, type, idOf(entity));
}

/**
 * Deletes entities of one type in the order given, as that many deleteEntity calls would (the
 * same answers, effects and errors; an error's `index` is its entity's position).
 */
export async function deleteEntities(
  ctx: CommandContext,
  catalog: Catalog,
  typeName: unknown,
  entities: unknown[],
): Promise<string[]> {
  const type = catalog.type(typeName);
  const { checked: ids, bad } = checkRun(entities, idOf);
  // The deletes before a bad one are made first: should one of them fail, that is the failure one
  // delete at a time reports.
  const answers = await deleteIds(ctx, catalog, type, ids);
  if (bad) throw bad;
  return answers;
}

async function deleteIds(ctx: CommandContext, catalog: Catalog, type: TypeDef, ids: string[]) {
  if (ctx.oneByOne || ids.length < 2) return oneAtATime(ids, (id) => deleteOne(ctx, catalog, type, id));
  try {
    await deleteOwnedContent(ctx.tx, catalog, type, ids);
    await forgetCreators(ctx.tx, catalog, type, ids);
    const { rowCount } = await ctx.tx.query(`DELETE FROM ${type.table} WHERE id = ANY($1::uuid[])`, [ids]);
    // One missing or named twice: which delete fails first is known only one at a time, and the
    // others are deleted already. The command runs again so (its own retry).
    if (rowCount !== ids.length) throw new RunAgainOneByOne();
  } catch (error) {
    throw refusedValue(error) ? new RunAgainOneByOne() : error;
  }
  for (const id of ids) ctx.effects.push({ effect: 'svc.entity/delete', id, type: type.name });
  return ids.map(() => 'ok');
}
