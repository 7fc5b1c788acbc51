import { entityQuery } from '../commands/entity-query.js';
import type { CommandContext } from '../commands/context.js';
import { badRequest } from '../errors.js';
import type { Catalog, TypeDef } from '../schema/catalog.js';
import { deleteEntities } from './delete-entities.js';
import { createEntities } from './entity-store.js';
import { updateEntities } from './update-entities.js';

// The service's commands on many entities of one type at once:
// - svc.entity.batch/create {type, entities}: the entities created, in order;
// - svc.entity.batch/delete {type, entities, opts?: {fail-if-not-found?}}: "ok";
// - svc.entity.batch/create-or-update {type, entities, conflict-field, conflict-action}: the
//   service's upsert (its API docs, "Upsert entities"). An entity whose conflict field holds a
//   value an existing entity holds too is a duplicate of it: `skip-create` leaves it, and
//   `update-latest` writes it onto the latest such entity (by creation date) but for the fields
//   the service keeps (id, public id, rank, creation date). Within the batch, entities sharing a
//   value defer to one of them (the first with skip-create, the last with update-latest). Null
//   matches nothing; text compares case-sensitively. The answer has one element per entity, in
//   order: {action: create, created}, {action: skip-create, entity, duplicate},
//   {action: update-latest, entity, duplicate, updated}, or
//   {action: prefer-duplicate-found-in-the-batch, entity, duplicate}.

type Args = Record<string, unknown>;
type Entity = Record<string, unknown>;

const isObject = (v: unknown): v is Entity => typeof v === 'object' && v !== null && !Array.isArray(v);
const invalid = (message: string) => badRequest(message, 'invalid-args');

/** The field types the service takes as a conflict field. */
const CONFLICT_TYPES = new Set(['svc/text', 'svc/int', 'svc/date']);
/** Fields an update-latest leaves as the duplicate has them. */
const KEPT = new Set(['svc/id', 'svc/public-id', 'svc/rank', 'svc/creation-date']);
const ACTIONS = new Set(['skip-create', 'update-latest']);

function entitiesOf(args: Args): Entity[] {
  const { entities } = args;
  if (!Array.isArray(entities) || !entities.every(isObject))
    throw invalid('entities must be an array of entity objects');
  return entities;
}

export async function batchCreate(ctx: CommandContext, catalog: Catalog, args: Args): Promise<unknown[]> {
  const entities = entitiesOf(args);
  return entities.length === 0 ? [] : createEntities(ctx, catalog, args.type, entities);
}

export async function batchDelete(ctx: CommandContext, catalog: Catalog, args: Args): Promise<string> {
  let entities = entitiesOf(args);
  const type = catalog.type(args.type);
  const opts = isObject(args.opts) ? args.opts : {};
  if (opts['fail-if-not-found?'] === false && entities.length > 0) {
    const ids = entities.map((e) => e['svc/id']);
    const found = await existing(ctx, catalog, type, ['svc/id'], ['q/in', ['svc/id'], '$ids'], { $ids: ids });
    const present = new Set(found.map((r) => r['svc/id']));
    entities = entities.filter((e) => present.has(e['svc/id']));
  }
  if (entities.length > 0) await deleteEntities(ctx, catalog, type.name, entities);
  return 'ok';
}

export async function batchCreateOrUpdate(
  ctx: CommandContext,
  catalog: Catalog,
  args: Args,
): Promise<unknown[]> {
  const entities = entitiesOf(args);
  const type = catalog.type(args.type);
  const field = catalog.field(type, args['conflict-field']);
  if (field.kind !== 'primitive' || !CONFLICT_TYPES.has(field.fieldType))
    throw invalid(`conflict-field must be a text, int or date field; ${field.name} is not one`);
  const action = args['conflict-action'];
  if (typeof action !== 'string' || !ACTIONS.has(action))
    throw invalid('conflict-action must be "skip-create" or "update-latest"');

  const keyOf = (e: Entity) => {
    const v = e[field.name];
    return v === null || v === undefined ? undefined : String(v);
  };
  // Within the batch, one entity stands for each value: the first (skip-create) or the last.
  const chosen = new Map<string, number>();
  entities.forEach((e, i) => {
    const key = keyOf(e);
    if (key !== undefined && (action === 'update-latest' || !chosen.has(key))) chosen.set(key, i);
  });
  const values = [...chosen.keys()].map((k) => entities[chosen.get(k)!]![field.name]);
  // The latest existing entity holding each value (rows come oldest first).
  const duplicates = new Map<string, Entity>();
  if (values.length > 0) {
    const rows = await existing(
      ctx,
      catalog,
      type,
      ['svc/id', 'svc/public-id', field.name],
      ['q/in', [field.name], '$values'],
      { $values: values },
    );
    for (const row of rows) duplicates.set(String(row[field.name]), row);
  }

  const results: unknown[] = new Array(entities.length);
  const creates: number[] = [];
  const updates: Array<{ i: number; duplicate: Entity }> = [];
  entities.forEach((entity, i) => {
    const key = keyOf(entity);
    const stands = key === undefined ? i : chosen.get(key)!;
    if (stands !== i) {
      results[i] = { action: 'prefer-duplicate-found-in-the-batch', entity, duplicate: entities[stands] };
      return;
    }
    const duplicate = key === undefined ? undefined : duplicates.get(key);
    if (!duplicate) creates.push(i);
    else if (action === 'skip-create') results[i] = { action, entity, duplicate };
    else updates.push({ i, duplicate });
  });
  if (creates.length > 0) {
    const created = await createEntities(
      ctx,
      catalog,
      type.name,
      creates.map((i) => entities[i]!),
    );
    creates.forEach((i, k) => {
      results[i] = { action: 'create', created: created[k] };
    });
  }
  if (updates.length > 0) {
    // Own keys only (Object.fromEntries): a key named __proto__ stays a key, as it was sent.
    const changes = updates.map(({ i, duplicate }) =>
      Object.fromEntries([
        ...Object.entries(entities[i]!).filter(([key]) => !KEPT.has(key)),
        ['svc/id', duplicate['svc/id']],
      ]),
    );
    const updated = await updateEntities(ctx, catalog, type.name, changes);
    updates.forEach(({ i, duplicate }, k) => {
      results[i] = { action, entity: entities[i], duplicate, updated: updated[k] };
    });
  }
  return results;
}

/** Entities of `type` matching `where`, oldest first, read as the user of the command may. */
async function existing(
  ctx: CommandContext,
  catalog: Catalog,
  type: TypeDef,
  select: string[],
  where: unknown[],
  params: Record<string, unknown>,
): Promise<Entity[]> {
  const query = {
    'q/from': type.name,
    'q/select': select,
    'q/where': where,
    'q/order-by': [[['svc/creation-date'], 'q/asc']],
    'q/limit': 'q/no-limit',
  };
  return (await entityQuery(
    ctx.tx,
    catalog,
    { query, params },
    { user: ctx.user, budgets: ctx.budgets },
  )) as Entity[];
}
