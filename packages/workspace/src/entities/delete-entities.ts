import { badRequest, notFound } from '../errors.js';
import type { Catalog, TypeDef } from '../schema/catalog.js';
import { isUuid } from '../schema/values.js';
import { type CommandContext, type Effect, RunAgainOneByOne } from '../commands/context.js';
import { listeningTo } from '../commands/listeners.js';
import { SqlBuilder } from '../query/sql-builder.js';
import { checkRun, oneAtATime, refusedValue } from './command-runs.js';
import { entityJson, isObject } from './entity-store.js';
import { forgetCreators } from '../schema/created-by.js';
import { deleteOwnedContent } from './owned-content.js';

type Row = Record<string, unknown>;

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

/**
 * The DELETE of `ids`, answering each entity's id and, when something listens to the type, its
 * values as they were: the service's delete effect carries them as `valuesBefore` (the plain
 * fields, dates, public id and rank; its relations it clears in effects of their own first).
 */
async function deleteRows(ctx: CommandContext, catalog: Catalog, type: TypeDef, ids: string[]) {
  const heard = await listeningTo(ctx.tx, type.name, ctx.listening);
  const b = new SqlBuilder();
  const where =
    ids.length === 1 ? `r0.id = ${b.bind(ids[0], 'uuid')}` : `r0.id = ANY(${b.bind(ids, 'uuid[]')})`;
  const before =
    heard.webhooks || heard.automations
      ? `${entityJson(catalog, type, 'r0', ctx.user, b, plainFields(type))}`
      : 'NULL::json';
  const { rows } = await ctx.tx.query<{ id: string; r: Row | null }>(
    `DELETE FROM ${type.table} AS r0 WHERE ${where} RETURNING r0.id::text AS id, ${before} AS r`,
    b.values,
  );
  return rows;
}

/** The fields a delete effect's `valuesBefore` holds: the plain ones, the id aside (the effect names it). */
function plainFields(type: TypeDef): Set<string> {
  return new Set(type.fields.filter((f) => f.kind === 'primitive' && f.name !== 'svc/id').map((f) => f.name));
}

function deleted(id: string, type: TypeDef, valuesBefore: Row | null): Effect {
  return { effect: 'svc.entity/delete', id, type: type.name, ...(valuesBefore ? { valuesBefore } : {}) };
}

async function deleteOne(ctx: CommandContext, catalog: Catalog, type: TypeDef, id: string) {
  // Rich-text documents and comments belong to their entity: they go with it.
  await deleteOwnedContent(ctx.tx, catalog, type, [id]);
  await forgetCreators(ctx.tx, catalog, type, [id]);
  const [row] = await deleteRows(ctx, catalog, type, [id]);
  if (!row) throw notFound(`${type.name} ${id} does not exist`);
  ctx.effects.push(deleted(id, type, row.r));
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
  let rows: { id: string; r: Row | null }[];
  try {
    await deleteOwnedContent(ctx.tx, catalog, type, ids);
    await forgetCreators(ctx.tx, catalog, type, ids);
    rows = await deleteRows(ctx, catalog, type, ids);
    // One missing or named twice: which delete fails first is known only one at a time, and the
    // others are deleted already. The command runs again so (its own retry).
    if (rows.length !== ids.length) throw new RunAgainOneByOne();
  } catch (error) {
    throw refusedValue(error) ? new RunAgainOneByOne() : error;
  }
  const before = new Map(rows.map((r) => [r.id, r.r]));
  for (const id of ids) ctx.effects.push(deleted(id, type, before.get(id) ?? null));
  return ids.map(() => 'ok');
}
