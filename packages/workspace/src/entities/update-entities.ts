import { assertFieldAccess, type Principal } from '../auth/principal.js';
import { badRequest, notFound, WorkspaceError } from '../errors.js';
import type { Catalog, FieldDef, TypeDef } from '../schema/catalog.js';
import { inputValue, isUuid } from '../schema/values.js';
import { SqlBuilder } from '../query/sql-builder.js';
import { type CommandContext, RunAgainOneByOne } from '../commands/context.js';
import { listeningTo } from '../commands/listeners.js';
import { checkRun, oneAtATime, refusedValue } from './command-runs.js';
import { entityJson, fieldColumnType, isObject, mapDbError, READONLY, refValue } from './entity-store.js';

// svc.entity/update, one entity at a time or a run of them (consecutive updates of one type in a
// batch, as a sync writes the rows it already holds). A run is a few statements, whatever its
// length: what listens to the type (once per command), the rows as they were (locked; only when
// something listens, for the effects), then one UPDATE over unnested arrays per set of fields.
// One at a time it was three round trips a row (the catalog check, the row before, the UPDATE),
// which made a sync of rows the workspace already holds about 50 times slower than their first
// sync. Both ways answer, record effects and fail alike: a run that would fail in the database is
// run again one update at a time (see RunAgainOneByOne), so the failure reported is the first in
// order.

type Row = Record<string, unknown>;

/** One checked update: the entity and the values it sets, bound as the column takes them. */
interface UpdatePlan {
  id: string;
  fields: FieldDef[];
  values: unknown[];
}

function planUpdate(user: Principal, catalog: Catalog, type: TypeDef, entity: unknown): UpdatePlan {
  if (!isObject(entity)) throw badRequest('entity must be an object with svc/id', 'invalid-args');
  const id = entity['svc/id'];
  if (!isUuid(id)) throw badRequest('entity must contain svc/id (a uuid)', 'invalid-args');
  // As the database prints it: effects name the entity as every other answer does.
  const key = id.toLowerCase();
  const fields: FieldDef[] = [];
  const values: unknown[] = [];
  for (const [name, value] of Object.entries(entity)) {
    if (name === 'svc/id' || READONLY.has(name)) continue;
    const f = catalog.field(type, name);
    assertFieldAccess(user, type, f);
    if (f.kind === 'many') {
      throw badRequest(
        `Collection field ${name} changes only through add/remove-collection-items`,
        'invalid-args',
      );
    }
    if (catalog.isRichText(f))
      throw badRequest(`Rich-text field ${name} changes through its document`, 'invalid-args');
    const v = f.kind === 'one' ? refValue(f, value) : inputValue(f.name, f.fieldType, value);
    if (v === null && f.meta['svc/required?'] === true) {
      throw new WorkspaceError(400, 'invalid-value', `Field ${f.name} is required`);
    }
    fields.push(f);
    values.push(v);
  }
  return { id: key, fields, values };
}

const columnOf = (f: FieldDef) => (f.storage as { col: string }).col;
/** The field an update's effect carries beside the fields it changed (recordEffect). */
export const MODIFIED = 'svc/modification-date';

/**
 * The SET of the modification date: bumped only when a value changes, so a row written back as it
 * was keeps it, as it has no effect either (recordEffect).
 */
function modifiedSet(fields: FieldDef[], values: string[]): string {
  if (fields.length === 0) return 'modified = r0.modified';
  // A decimal prints with its scale ("15.0"), so one whose scale changes is a change, as the
  // effect has it, though the numbers are equal.
  const asPrinted = (f: FieldDef, sql: string) => (fieldColumnType(f) === 'numeric' ? `${sql}::text` : sql);
  const now = fields.map((f) => asPrinted(f, `r0.${columnOf(f)}`)).join(', ');
  const given = fields.map((f, i) => asPrinted(f, values[i]!)).join(', ');
  return `modified = CASE WHEN (${now}) IS DISTINCT FROM (${given}) THEN clock_timestamp() ELSE r0.modified END`;
}

/** Two values as the API prints them are the same value. */
const sameValue = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * The effect of an update: the fields it changed, as they were before and are now, and with them
 * the modification date it moved (the service's own update effects always carry it, and a client
 * counting the keys of `valuesBefore` takes more than one as "a field changed"). A field set to
 * the value it held is no change, and an update that changed nothing has no effect: webhooks and
 * automations hear of changes only, so a sync that writes back rows as they are tells nobody.
 */
function recordEffect(ctx: CommandContext, type: TypeDef, plan: UpdatePlan, before: Row, after: Row): void {
  const values: Row = {};
  const valuesBefore: Row = {};
  let changed = false;
  for (const f of plan.fields) {
    if (sameValue(after[f.name], before[f.name])) continue;
    values[f.name] = after[f.name];
    valuesBefore[f.name] = before[f.name];
    changed = true;
  }
  if (!changed) return;
  if (MODIFIED in after) {
    values[MODIFIED] = after[MODIFIED];
    valuesBefore[MODIFIED] = before[MODIFIED];
  }
  ctx.effects.push({ effect: 'svc.entity/update', id: plan.id, type: type.name, values, valuesBefore });
}

async function updateOne(ctx: CommandContext, catalog: Catalog, type: TypeDef, plan: UpdatePlan) {
  const bb = new SqlBuilder();
  const beforeSql = `SELECT ${entityJson(catalog, type, 'r0', ctx.user, bb)} AS r FROM ${type.table} r0 WHERE r0.id = ${bb.bind(plan.id, 'uuid')} FOR UPDATE`;
  const before = await ctx.tx.query<{ r: Row }>(beforeSql, bb.values);
  if (before.rows.length === 0) throw notFound(`${type.name} ${plan.id} does not exist`);
  const b = new SqlBuilder();
  const values = plan.fields.map((f, i) => b.bind(plan.values[i], fieldColumnType(f)));
  const sets = plan.fields.map((f, i) => `${columnOf(f)} = ${values[i]}`);
  const returning = entityJson(catalog, type, 'r0', ctx.user, b);
  const sql = `UPDATE ${type.table} AS r0 SET ${[...sets, modifiedSet(plan.fields, values)].join(', ')}
    WHERE r0.id = ${b.bind(plan.id, 'uuid')} RETURNING ${returning} AS r`;
  let rows: Array<{ r: Row }>;
  try {
    ({ rows } = await ctx.tx.query<{ r: Row }>(sql, b.values));
  } catch (error) {
    mapDbError(error, `Updating ${type.name}`);
  }
  const after = rows[0]!.r;
  recordEffect(ctx, type, plan, before.rows[0]!.r, after);
  return after;
}

/** Updates one entity; answers it as it now is. */
export async function updateEntity(
  ctx: CommandContext,
  catalog: Catalog,
  typeName: unknown,
  entity: unknown,
) {
  const type = catalog.type(typeName);
  return updateOne(ctx, catalog, type, planUpdate(ctx.user, catalog, type, entity));
}

/**
 * Updates entities of one type in the order given, as that many updateEntity calls would (the
 * same results, effects and errors; an error's `index` is its entity's position).
 */
export async function updateEntities(
  ctx: CommandContext,
  catalog: Catalog,
  typeName: unknown,
  entities: unknown[],
): Promise<(Row | null)[]> {
  const type = catalog.type(typeName);
  const { checked: plans, bad } = checkRun(entities, (e) => planUpdate(ctx.user, catalog, type, e));
  // The updates before a bad one are made first: should one of them fail, that is the failure one
  // update at a time reports.
  const results = await updatePlans(ctx, catalog, type, plans);
  if (bad) throw bad;
  return results;
}

async function updatePlans(
  ctx: CommandContext,
  catalog: Catalog,
  type: TypeDef,
  plans: UpdatePlan[],
): Promise<(Row | null)[]> {
  // An entity named twice is updated twice, each update answering what it left.
  const keys = plans.map((p) => p.id);
  if (ctx.oneByOne || plans.length < 2 || new Set(keys).size < keys.length)
    return oneByOne(ctx, catalog, type, plans);
  // Effects are for listeners (webhooks, automations): for a type nothing listens to, none is
  // recorded, so the entities as they were are not read. Learnt once per command (the command's
  // own look-up of its listeners then needs no statement).
  const heard = await listeningTo(ctx.tx, type.name, ctx.listening);
  const effects = heard.webhooks || heard.automations;
  // A caller that reads no results (a sync writing pages) gets null for each update.
  const results = ctx.createResults !== false;
  let before: Map<string, Row> | undefined;
  if (effects) {
    const changed = new Set([MODIFIED, ...plans.flatMap((p) => p.fields.map((f) => f.name))]);
    const b = new SqlBuilder();
    const { rows: found } = await ctx.tx.query<{ id: string; r: Row }>(
      `SELECT r0.id::text AS id, ${entityJson(catalog, type, 'r0', ctx.user, b, changed)} AS r FROM ${type.table} r0
        WHERE r0.id = ANY(${b.bind(keys, 'uuid[]')}) FOR UPDATE`,
      b.values,
    );
    // One is missing: one at a time, the updates before it are made and it fails as its own.
    if (found.length < plans.length) return oneByOne(ctx, catalog, type, plans);
    before = new Map(found.map((r) => [r.id, r.r]));
  }
  // Entities setting the same fields (in the same order) go in one statement: usually all of them.
  const groups = new Map<string, number[]>();
  for (const [i, p] of plans.entries()) {
    const key = p.fields.map((f) => f.name).join('\0');
    const group = groups.get(key);
    if (group) group.push(i);
    else groups.set(key, [i]);
  }
  const after = new Map<string, Row | null>();
  for (const members of groups.values()) {
    const fields = plans[members[0]!]!.fields;
    const ub = new SqlBuilder();
    const arrays = [
      ub.bind(
        members.map((i) => keys[i]),
        'uuid[]',
      ),
    ];
    for (const [c, f] of fields.entries())
      arrays.push(
        ub.bind(
          members.map((i) => plans[i]!.values[c]),
          `${fieldColumnType(f)}[]`,
        ),
      );
    const sets = fields.map((f, c) => `${columnOf(f)} = v.c${c}`);
    // The entity as the API prints it for a result; the values set for an effect; else nothing.
    const returning = results
      ? entityJson(catalog, type, 'r0', ctx.user, ub)
      : effects
        ? entityJson(catalog, type, 'r0', ctx.user, ub, new Set([MODIFIED, ...fields.map((f) => f.name)]))
        : 'NULL::json';
    const given = fields.map((_, c) => `v.c${c}`);
    const sql = `UPDATE ${type.table} AS r0 SET ${[...sets, modifiedSet(fields, given)].join(', ')}
      FROM unnest(${arrays.join(', ')}) AS v(id${fields.map((_, c) => `, c${c}`).join('')})
      WHERE r0.id = v.id RETURNING r0.id::text AS id, ${returning} AS r`;
    let rows: Array<{ id: string; r: Row | null }>;
    try {
      ({ rows } = await ctx.tx.query<{ id: string; r: Row | null }>(sql, ub.values));
    } catch (error) {
      // A value the database refuses (a relation to an entity that does not exist): the
      // transaction is lost, and the command runs again one update at a time (RunAgainOneByOne).
      throw refusedValue(error) ? new RunAgainOneByOne() : error;
    }
    // One is missing (not looked for before, nobody listening): which update fails first is known
    // only one at a time, and the others are made already. The command runs again so.
    if (rows.length < members.length) throw new RunAgainOneByOne();
    for (const r of rows) after.set(r.id, r.r);
  }
  return plans.map((p, i) => {
    const now = after.get(keys[i]!) ?? null;
    if (before) recordEffect(ctx, type, p, before.get(keys[i]!)!, now!);
    return results ? now : null;
  });
}

const oneByOne = (ctx: CommandContext, catalog: Catalog, type: TypeDef, plans: UpdatePlan[]) =>
  oneAtATime(plans, async (plan) => {
    const after = await updateOne(ctx, catalog, type, plan);
    return ctx.createResults === false ? null : after;
  });
