import { assertFieldAccess } from '../auth/principal.js';
import { badRequest, notFound, WorkspaceError } from '../errors.js';
import type { Catalog, FieldDef, TypeDef } from '../schema/catalog.js';
import { isUuid } from '../schema/values.js';
import { type CommandContext, RunAgainOneByOne } from '../commands/context.js';
import { checkRun, oneAtATime, refusedValue } from './command-runs.js';
import { isObject, mapDbError, refValue } from './entity-store.js';

// svc.entity/add-collection-items and remove-collection-items, one at a time or a run of them
// (consecutive changes of one collection field, as a sync sets the many-to-many links of a page's
// rows). A run is two statements: the entities checked, then one INSERT (or DELETE, or UPDATE of
// the other side) over unnested pairs. One at a time it was three round trips a command. Both ways
// answer, record effects and fail alike: a run that would fail in the database is run again one
// change at a time (RunAgainOneByOne), so the failure reported is the first in order.

type Row = Record<string, unknown>;
type Mode = 'add' | 'remove';

/** One checked change: the entity (as the database prints its id) and the items, each once. */
interface Change {
  type: TypeDef;
  field: FieldDef;
  id: string;
  items: string[];
}

function planChange(ctx: CommandContext, catalog: Catalog, args: Row): Change {
  const type = catalog.type(args.type);
  const field = catalog.field(type, args.field);
  assertFieldAccess(ctx.user, type, field);
  if (field.kind !== 'many')
    throw badRequest(`Field ${field.name} is not a collection field`, 'invalid-args');
  const id = isObject(args.entity) ? args.entity['svc/id'] : undefined;
  if (!isUuid(id)) throw badRequest('entity must be {"svc/id": <uuid>}', 'invalid-args');
  if (!Array.isArray(args.items))
    throw badRequest('items must be an array of {"svc/id": <uuid>}', 'invalid-args');
  const items = [...new Set(args.items.map((i) => refValue(field, i)?.toLowerCase() ?? null))].filter(
    (i): i is string => i !== null,
  );
  return { type, field, id: id.toLowerCase(), items };
}

/** The answer of a change: the service answers null for a comment link made inside a batch. */
const answerOf = (ctx: CommandContext, c: Change, mode: Mode) =>
  mode === 'add' && ctx.depth > 0 && c.field.name === 'comments/comments' ? null : 'ok';

/** An entity and an item of its collection, as one key. */
const pairKey = (entity: string, item: string) => `${entity} ${item}`;

/**
 * The effect of a change: the items it added (or removed), of those it named. An item the
 * collection held already (or did not hold) is no change, and a change of none has no effect, as
 * an update of no value has none (update-entities.ts). `changed` holds the pairs the database
 * changed; each goes to the first change naming it, as one change at a time would have it.
 */
function recordEffect(ctx: CommandContext, c: Change, mode: Mode, changed: Set<string>): void {
  const items: string[] = [];
  for (const i of c.items) if (changed.delete(pairKey(c.id, i))) items.push(i);
  if (items.length === 0) return;
  ctx.effects.push({
    effect: mode === 'add' ? 'svc.entity/add-collection-items' : 'svc.entity/remove-collection-items',
    id: c.id,
    type: c.type.name,
    field: c.field.name,
    items: items.map((i) => ({ 'svc/id': i })),
  });
}

/** A pair a statement answered as changed: `s` the entity, `o` the item. */
type Pair = { s: string; o: string };

const changedPairs = (rows: Pair[]) => new Set(rows.map((r) => pairKey(r.s, r.o)));

async function changeOne(ctx: CommandContext, catalog: Catalog, c: Change, mode: Mode) {
  const { type, field, id, items } = c;
  const exists = await ctx.tx.query(`SELECT 1 FROM ${type.table} WHERE id = $1`, [id]);
  if (exists.rows.length === 0) throw notFound(`${type.name} ${id} does not exist`);
  const target = catalog.target(field);
  const s = field.storage;
  let changed: Pair[] = [];
  try {
    if (s.kind === 'join') {
      if (mode === 'add') {
        ({ rows: changed } = await ctx.tx.query<Pair>(
          `INSERT INTO ${s.table} (${s.self}, ${s.other}) SELECT $1, x FROM unnest($2::uuid[]) AS x ON CONFLICT DO NOTHING
           RETURNING ${s.self}::text AS s, ${s.other}::text AS o`,
          [id, items],
        ));
      } else {
        ({ rows: changed } = await ctx.tx.query<Pair>(
          `DELETE FROM ${s.table} WHERE ${s.self} = $1 AND ${s.other} = ANY($2::uuid[])
           RETURNING ${s.self}::text AS s, ${s.other}::text AS o`,
          [id, items],
        ));
      }
    } else if (s.kind === 'reverse') {
      const pc = partnerColumn(catalog, field);
      if (mode === 'add') {
        // Each item as it was (`was`, the same snapshot), to tell the items it held already.
        const { rows } = await ctx.tx.query<Pair & { was: string | null }>(
          `UPDATE ${target.table} t SET ${pc} = $1::uuid, modified = clock_timestamp() FROM ${target.table} w
             WHERE t.id = ANY($2::uuid[]) AND w.id = t.id
           RETURNING t.${pc}::text AS s, t.id::text AS o, w.${pc}::text AS was`,
          [id, items],
        );
        if (rows.length !== items.length) {
          throw new WorkspaceError(400, 'invalid-value', `Some items are not entities of ${target.name}`);
        }
        changed = rows.filter((r) => r.was !== r.s);
      } else {
        ({ rows: changed } = await ctx.tx.query<Pair>(
          `UPDATE ${target.table} SET ${pc} = NULL, modified = clock_timestamp() WHERE id = ANY($2::uuid[]) AND ${pc} = $1::uuid
           RETURNING $1::uuid::text AS s, id::text AS o`,
          [id, items],
        ));
      }
    }
  } catch (error) {
    mapDbError(error, `Changing ${field.name}`);
  }
  recordEffect(ctx, c, mode, changedPairs(changed));
  return answerOf(ctx, c, mode);
}

const partnerColumn = (catalog: Catalog, field: FieldDef) => {
  const s = field.storage as { partner: string };
  return (catalog.fieldById(s.partner)!.storage as { col: string }).col;
};

/** Adds items to (or removes them from) an entity's collection field. */
export async function changeCollection(ctx: CommandContext, catalog: Catalog, args: Row, mode: Mode) {
  return changeOne(ctx, catalog, planChange(ctx, catalog, args), mode);
}

/**
 * Makes changes of one collection field (of one type) in the order given, as that many
 * changeCollection calls would (the same answers, effects and errors; an error's `index` is its command's position).
 */
export async function changeCollections(
  ctx: CommandContext,
  catalog: Catalog,
  argsList: Row[],
  mode: Mode,
): Promise<unknown[]> {
  const { checked: changes, bad } = checkRun(argsList, (args) => planChange(ctx, catalog, args));
  // The changes before a bad one are made first: should one of them fail, that is the failure one
  // change at a time reports.
  const answers = await makeChanges(ctx, catalog, changes, mode);
  if (bad) throw bad;
  return answers;
}

async function makeChanges(ctx: CommandContext, catalog: Catalog, changes: Change[], mode: Mode) {
  const first = changes[0];
  const entities = new Set(changes.map((c) => c.id));
  // The other side of a one-to-many holds one owner an item: the order of the changes decides it.
  const ordered = first?.field.storage.kind === 'reverse' && entities.size < changes.length;
  if (!first || ctx.oneByOne || changes.length < 2 || ordered) return oneByOne(ctx, catalog, changes, mode);
  const { type, field } = first;
  const { rows } = await ctx.tx.query<{ id: string }>(
    `SELECT id::text AS id FROM ${type.table} WHERE id = ANY($1::uuid[])`,
    [[...entities]],
  );
  // One is missing: one at a time, the changes before it are made and it fails as its own.
  if (rows.length < entities.size) return oneByOne(ctx, catalog, changes, mode);
  const owners = changes.flatMap((c) => c.items.map(() => c.id));
  const items = changes.flatMap((c) => c.items);
  const s = field.storage;
  let changed: Pair[] = [];
  try {
    if (s.kind === 'join') {
      const pairs = `unnest($1::uuid[], $2::uuid[]) AS v(s, o)`;
      ({ rows: changed } = await ctx.tx.query<Pair>(
        mode === 'add'
          ? `INSERT INTO ${s.table} (${s.self}, ${s.other}) SELECT s, o FROM ${pairs} ON CONFLICT DO NOTHING
             RETURNING ${s.self}::text AS s, ${s.other}::text AS o`
          : `DELETE FROM ${s.table} j USING ${pairs} WHERE j.${s.self} = v.s AND j.${s.other} = v.o
             RETURNING j.${s.self}::text AS s, j.${s.other}::text AS o`,
        [owners, items],
      ));
    } else if (s.kind === 'reverse') {
      const target = catalog.target(field);
      const pc = partnerColumn(catalog, field);
      if (mode === 'add') {
        // An item named for two entities: the last one takes it, as one at a time.
        if (new Set(items).size < items.length) return oneByOne(ctx, catalog, changes, mode);
        // Each item as it was (`was`, the same snapshot), to tell the items it held already.
        const { rows } = await ctx.tx.query<Pair & { was: string | null }>(
          `UPDATE ${target.table} t SET ${pc} = v.s, modified = clock_timestamp()
             FROM unnest($1::uuid[], $2::uuid[]) AS v(s, o), ${target.table} w WHERE t.id = v.o AND w.id = v.o
           RETURNING v.s::text AS s, v.o::text AS o, w.${pc}::text AS was`,
          [owners, items],
        );
        // An item that is not an entity of the target: the others are changed already, and which
        // change fails first is known only one at a time. The command runs again so.
        if (rows.length !== items.length) throw new RunAgainOneByOne();
        changed = rows.filter((r) => r.was !== r.s);
      } else {
        ({ rows: changed } = await ctx.tx.query<Pair>(
          `UPDATE ${target.table} t SET ${pc} = NULL, modified = clock_timestamp()
             FROM unnest($1::uuid[], $2::uuid[]) AS v(s, o) WHERE t.id = v.o AND t.${pc} = v.s
           RETURNING v.s::text AS s, v.o::text AS o`,
          [owners, items],
        ));
      }
    }
  } catch (error) {
    // A value the database refuses (an item that is not an entity): the transaction is lost, and
    // the command runs again one change at a time (RunAgainOneByOne).
    throw refusedValue(error) ? new RunAgainOneByOne() : error;
  }
  const pairs = changedPairs(changed);
  for (const c of changes) recordEffect(ctx, c, mode, pairs);
  return changes.map((c) => answerOf(ctx, c, mode));
}

const oneByOne = (ctx: CommandContext, catalog: Catalog, changes: Change[], mode: Mode) =>
  oneAtATime(changes, (c) => changeOne(ctx, catalog, c, mode));
