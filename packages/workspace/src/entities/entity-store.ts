import { randomUUID } from 'node:crypto';
import { assertFieldAccess, meansAsker, type Principal } from '../auth/principal.js';
import type { Queryable } from '../db/driver.js';
import { sqlState } from '../db/driver.js';
import { BinaryRows, type BinaryType, isBinaryType } from '../db/copy-binary.js';
import { badRequest, conflict, WorkspaceError } from '../errors.js';
import type { Catalog, FieldDef, PrimitiveType, TypeDef } from '../schema/catalog.js';
import { DOCUMENT_SECRET, DOCUMENT_TYPE } from '../schema/catalog.js';
import { CREATED_BY, CREATED_BY_COLUMN, creatorField } from '../schema/created-by.js';
import {
  answered,
  createdResult,
  resultShape,
  exactOutput,
  isoFromMicros,
  neverExact,
} from './created-result.js';
import type { CreateRows } from './create-rows.js';
import { allocatePublicIds, MANDATORY_FIELDS } from '../schema/schema-store.js';
import { COLUMN_TYPE, inputValue, isUuid, outputExpr } from '../schema/values.js';
import { jsonObject, SqlBuilder } from '../query/sql-builder.js';
import { rememberJson } from '../commands/answer-json.js';
import { createdBatchJson } from '../commands/result-shape.js';
import { type CommandContext, type Effect, RowsNotExact, StaleCatalog } from '../commands/context.js';
import { type Listening, watchedSql } from '../commands/listeners.js';

// Entity behaviour over the typed tables: create (many rows in one statement: an INSERT, or a COPY
// for long runs); updates, deletes and collection links are update-entities.ts',
// delete-entities.ts' and change-collections.ts'. A create's result
// is built here when it is certain to print as the database would (created-result.ts), else by
// the database.

type Row = Record<string, unknown>;
export const READONLY = new Set(['svc/public-id', 'svc/creation-date', 'svc/modification-date', CREATED_BY]);

export const isObject = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * SQL for the entity as the API returns it: primitive, single-select and entity fields (`only`:
 * just those named).
 */
export function entityJson(
  _catalog: Catalog,
  type: TypeDef,
  alias: string,
  user: Principal,
  b: SqlBuilder,
  only?: ReadonlySet<string>,
): string {
  const pairs: Array<[string, string]> = [];
  for (const f of type.fields) {
    if (!answered(user, type, f) || (only && !only.has(f.name))) continue;
    const c = `${alias}.${(f.storage as { col: string }).col}`;
    pairs.push([
      f.name,
      f.kind === 'primitive'
        ? outputExpr(f.fieldType, c)
        : `CASE WHEN ${c} IS NULL THEN NULL ELSE json_build_object('svc/id', ${c}) END`,
    ]);
  }
  return jsonObject(pairs, b);
}

export function refValue(field: FieldDef, value: unknown): string | null {
  if (value === null) return null;
  const id = isObject(value) ? value['svc/id'] : value;
  // `{"svc/id": null}` is no target too: a mobile client clears a single-select so.
  if (id === null && isObject(value) && Object.keys(value).length === 1) return null;
  if (!isUuid(id)) {
    throw new WorkspaceError(400, 'invalid-value', `Field ${field.name} takes {"svc/id": <uuid>} or null`);
  }
  return id;
}

/** Maps database errors that bad input can cause to command errors. */
export function mapDbError(error: unknown, what: string): never {
  const code = sqlState(error);
  if (code === '23503')
    throw new WorkspaceError(400, 'invalid-value', `${what}: a referenced entity does not exist`);
  if (code === '23505') throw conflict(`${what}: an entity with this svc/id already exists`);
  throw error;
}

/** The row a constraint error names in its detail, e.g. `Key (f_3)=(<uuid>) is not present`. */
function offendingRow(error: unknown, cols: string[], values: unknown[][]): number | undefined {
  const detail = (error as { detail?: unknown }).detail;
  const m = typeof detail === 'string' ? /Key \((\w+)\)=\(([^)]*)\)/.exec(detail) : null;
  if (!m) return undefined;
  const c = cols.indexOf(m[1]!);
  if (c < 0) return undefined;
  const i = values[c]!.indexOf(m[2]);
  return i < 0 ? undefined : i;
}

interface Prepared {
  id: string;
  /** the values by column slot (see Preparer.cols); unset where the row sets no value */
  values: unknown[];
  /** rich-text documents the row owns */
  docs: string[] | undefined;
  /** every value prints in the database as it reads here (see created-result.ts) */
  exact: boolean;
}

/**
 * What prepareCreate needs of a type beyond its fields by name, worked out once per loaded type
 * (a catalog's types are new objects whenever the schema changes): its rich-text fields, and the
 * few fields that need a look after the given values (documents, defaults, required).
 */
interface CreatePlan {
  richText: Set<FieldDef>;
  after: Array<{ f: FieldDef; col: string; richText: boolean }>;
}
const plans = new WeakMap<TypeDef, CreatePlan>();

function createPlan(catalog: Catalog, type: TypeDef): CreatePlan {
  let plan = plans.get(type);
  if (plan) return plan;
  plan = { richText: new Set(), after: [] };
  for (const f of type.fields) {
    const richText = catalog.isRichText(f);
    if (richText) plan.richText.add(f);
    // The mandatory fields and svc/created-by are set with the row's fixed columns: svc/created-by
    // set through this default path, as its meta would have it, cost a bulk create on Postgres 9 %
    // of its rate and 16 % of its CPU rate (4 turns each way).
    if (f.storage.kind !== 'column' || MANDATORY_FIELDS[f.name] || f.name === CREATED_BY) continue;
    const d = f.meta['svc/default-value'];
    if (richText || (d !== undefined && d !== null) || f.meta['svc/required?'] === true)
      plan.after.push({ f, col: f.storage.col, richText });
  }
  plans.set(type, plan);
  return plan;
}

/** The same field names in the same order (an entity's keys as Object.keys gives them). */
function sameNames(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** What is done with one given field name of an entity: nothing (an id or read-only field), or a check into a slot. */
type Step = { f: FieldDef; slot: number } | undefined;

/** A run's entities checked and turned into column values, in order, as far as asked. */
interface Preparer {
  /** how many entities the run has */
  readonly total: number;
  readonly prepared: Prepared[];
  /** the columns rows set so far, in slot order: a row's values[k] is cols[k]'s */
  readonly cols: readonly string[];
  /** the slot of a column set by some row (or seeded), else undefined */
  slotOf(col: string): number | undefined;
  /** every row prepared so far prints in the database as it reads */
  readonly exact: boolean;
  /** Prepares the rows before `end`; an error names the failing entity's index. */
  upTo(end: number): void;
}

/**
 * `seed`: columns given their slots first, in this order (a COPY's columns, known before its rows
 * are checked). Rows of a run mostly name the same fields in the same order: each field name is
 * resolved (and its access checked) once for each order of names met, not once per row.
 */
function preparer(
  ctx: CommandContext,
  catalog: Catalog,
  type: TypeDef,
  entities: unknown[] | CreateRows,
  seed: readonly string[] = [],
): Preparer {
  const columnar = Array.isArray(entities) ? undefined : entities;
  const total = columnar ? columnar.rows.length : (entities as unknown[]).length;
  const now = new Date().toISOString();
  const plan = createPlan(catalog, type);
  const prepared: Prepared[] = [];
  const ids = new Set<string>();
  const cols: string[] = [];
  const slots = new Map<string, number>();
  const slot = (col: string): number => {
    let k = slots.get(col);
    if (k === undefined) {
      k = cols.push(col) - 1;
      slots.set(col, k);
    }
    return k;
  };
  for (const col of seed) slot(col);
  let exact = true;
  /** the names of the last row whose steps were all resolved, and those steps */
  let lastNames: readonly string[] = [];
  let lastSteps: Step[] = [];

  const resolve = (name: string): Step => {
    if (name === 'svc/id' || READONLY.has(name)) return undefined;
    const f = catalog.field(type, name);
    assertFieldAccess(ctx.user, type, f);
    if (f.kind === 'many') {
      throw badRequest(
        `Collection field ${name} cannot be set at creation; add items afterwards`,
        'invalid-args',
      );
    }
    if (plan.richText.has(f)) {
      throw badRequest(
        `Rich-text field ${name} cannot be set at creation; write its document`,
        'invalid-args',
      );
    }
    return { f, slot: slot((f.storage as { col: string }).col) };
  };

  const prepareCreate = (i: number): Prepared => {
    let given: unknown;
    let names: readonly string[];
    /** the row's values by name (an entity), or in the order of names (rows) */
    let entity: Row | undefined;
    let row: readonly unknown[] | undefined;
    if (columnar) {
      given = columnar.ids[i];
      names = columnar.names;
      row = columnar.rows[i];
      if (!Array.isArray(row)) throw badRequest('a row must be an array of field values', 'invalid-args');
    } else {
      const e = (entities as unknown[])[i];
      if (!isObject(e)) throw badRequest('entity must be an object of field values', 'invalid-args');
      entity = e;
      given = e['svc/id'];
      names = Object.keys(e);
    }
    if (given !== undefined && given !== null && !isUuid(given)) {
      throw new WorkspaceError(400, 'invalid-value', 'svc/id must be a uuid');
    }
    // The database prints uuids in lower case; so does every result built here.
    const id = (given as string | undefined)?.toLowerCase() ?? randomUUID();
    const values: unknown[] = [];
    let rowExact = true;
    const known = names === lastNames || sameNames(names, lastNames);
    // A new order of names is resolved name by name, each checked before the next is looked up,
    // so that the first bad name or value in the entity is the one reported.
    const steps: Step[] = known ? lastSteps : [];
    for (let k = 0; k < names.length; k++) {
      const step = known ? steps[k] : resolve(names[k]!);
      if (!known) steps.push(step);
      if (step === undefined) continue;
      const { f } = step;
      const value = row ? row[k] : entity![names[k]!];
      const v = f.kind === 'one' ? refValue(f, value) : inputValue(f.name, f.fieldType, value);
      if (f.kind === 'primitive' && rowExact) rowExact = exactOutput(f.fieldType, v);
      values[step.slot] = v;
    }
    if (!known) {
      lastNames = names;
      lastSteps = steps;
    }
    let docs: string[] | undefined;
    for (const { f, col, richText } of plan.after) {
      if (richText) {
        const doc = randomUUID();
        docs ??= [];
        docs.push(doc);
        values[slot(col)] = doc;
        continue;
      }
      const at = slots.get(col);
      const d = f.meta['svc/default-value'];
      if ((at === undefined || values[at] === undefined) && d !== undefined && d !== null) {
        let v: unknown;
        if (f.kind === 'one') v = refValue(f, meansAsker(d) ? ctx.user.id : d);
        else if (d === '$now') v = f.fieldType === 'svc/date' ? now.slice(0, 10) : now;
        else v = inputValue(f.name, f.fieldType, d);
        if (f.kind === 'primitive' && rowExact) rowExact = exactOutput(f.fieldType, v);
        values[slot(col)] = v;
      }
      const k = slots.get(col);
      if (f.meta['svc/required?'] === true && (k === undefined || (values[k] ?? null) === null)) {
        throw new WorkspaceError(400, 'invalid-value', `Field ${f.name} is required`);
      }
    }
    return { id, values, docs, exact: rowExact };
  };

  return {
    total,
    prepared,
    cols,
    slotOf: (col) => slots.get(col),
    get exact() {
      return exact;
    },
    upTo(end) {
      for (let i = prepared.length; i < Math.min(end, total); i++) {
        let p: Prepared;
        try {
          p = prepareCreate(i);
        } catch (error) {
          if (error instanceof WorkspaceError) error.index = i;
          throw error;
        }
        if (ids.has(p.id)) throw conflict(`svc/id ${p.id} is given twice`);
        ids.add(p.id);
        if (!p.exact) exact = false;
        prepared.push(p);
      }
    },
  };
}

/** The SQL type of a field's column: its primitive's, or a uuid (the key of a to-one field). */
export function fieldColumnType(f: FieldDef): string {
  if (f.kind !== 'primitive') return 'uuid';
  return COLUMN_TYPE[f.fieldType as PrimitiveType] ?? 'text';
}

function columnType(type: TypeDef, col: string): string {
  const f = type.fields.find((x) => x.storage.kind === 'column' && x.storage.col === col);
  return f ? fieldColumnType(f) : 'uuid';
}

/**
 * Inserts rows given as column → values arrays, in one statement. Creation dates follow the given
 * order (a microsecond apart, after every existing entity), so the default order is creation order.
 * With `returning`, answers each row's id and that SQL as `r`; without, one row holding the
 * creation time before the first row, in microseconds since the epoch (row k is `micros + k`).
 */
async function insertRows(
  tx: Queryable,
  type: TypeDef,
  ids: string[],
  firstPublicId: number,
  columns: string[],
  values: unknown[][],
  returning: string | undefined,
  b: SqlBuilder,
  learn?: string,
  creator?: string,
): Promise<Row[]> {
  const arrays = [
    b.bind(ids, 'uuid[]'),
    b.bind(
      ids.map((_, i) => String(firstPublicId + i)),
      'text[]',
    ),
  ];
  for (let i = 0; i < columns.length; i++)
    arrays.push(b.bind(values[i], `${columnType(type, columns[i]!)}[]`));
  const names = ['id', 'public_id', ...columns];
  const at = `'epoch'::timestamptz + (b.us + v.k) * interval '1 microsecond'`;
  // The creator is the same on every row: one parameter, not an array.
  const by = creator === undefined ? '' : `, ${b.bind(creator, 'uuid')}`;
  const insert = `INSERT INTO ${type.table} AS r0 (${names.join(', ')}, created, modified${by ? `, ${CREATED_BY_COLUMN}` : ''})
    SELECT ${names.map((_, i) => `v.c${i}`).join(', ')}, ${at}, ${at}${by}
    FROM unnest(${arrays.join(', ')}) WITH ORDINALITY AS v(${names.map((_, i) => `c${i}`).join(', ')}, k), b`;
  const base = `b AS (SELECT floor(extract(epoch FROM GREATEST(clock_timestamp(), (SELECT max(created) FROM ${type.table}))) * 1000000)::int8 AS us)`;
  // With `learn` (a type name), the same row also says what listens to that type (listeners.ts).
  const watched = learn ? `, ${watchedSql(b.bind([learn], 'text[]'), `$${b.values.length}`)}` : '';
  const sql = returning
    ? `WITH ${base} ${insert} RETURNING r0.id AS id, ${returning} AS r`
    : `WITH ${base}, ins AS (${insert}) SELECT us::text AS us${watched} FROM b`;
  const { rows } = await tx.query<Row>(sql, b.values);
  return rows;
}

/** Creates entities of one type (objects, or rows by name: see create-rows.ts); results in the order given. */
export async function createEntities(
  ctx: CommandContext,
  catalog: Catalog,
  typeName: unknown,
  entities: unknown[] | CreateRows,
): Promise<(Row | null)[]> {
  const total = Array.isArray(entities) ? entities.length : entities.rows.length;
  // An unchecked catalog (see CommandContext.unchecked) is checked by the head statement below;
  // until then an error it leads to may only mean that it is stale.
  const unchecked = ctx.unchecked !== undefined && ctx.unchecked === catalog;
  let type: TypeDef;
  try {
    type = catalog.type(typeName);
  } catch (error) {
    throw unchecked ? new StaleCatalog() : error;
  }
  if (type.name === DOCUMENT_TYPE)
    throw badRequest('Documents are created with their owning entity', 'invalid-args');
  // A run long enough for COPY sends its head statement (public ids, base time) first and checks
  // the rows while the database answers it.
  const head =
    ctx.tx.copyIn && total >= COPY_MIN_ROWS
      ? copyHead(ctx, type, total, unchecked ? catalog.token : undefined)
      : undefined;
  if (unchecked && !head) throw new StaleCatalog(); // not a run the caller should have given
  // A long run whose columns are known from its field names is checked a slice at a time: the
  // first slice while the head statement is answered, the others while the COPY takes the rows
  // before them (copyCreated).
  const streamed =
    head && !ctx.checkFirst ? streamColumns(type, createPlan(catalog, type), entities) : undefined;
  const run = preparer(ctx, catalog, type, entities, streamed);
  try {
    run.upTo(streamed ? COPY_SLICE : total);
  } catch (error) {
    // The transaction rolls back; the head statement is over before anything else is sent.
    const checked = await head?.catch(() => undefined);
    if (unchecked && checked === undefined) throw new StaleCatalog();
    throw error;
  }
  // With an unchecked catalog, a failed head statement may mean a stale one (a table now gone).
  const headRow = await (unchecked
    ? head!.catch(() => {
        throw new StaleCatalog();
      })
    : head);
  if (head && !headRow) throw new StaleCatalog();
  if (streamed && headRow && run.exact) return copyCreated(ctx, type, run, streamed, headRow);
  run.upTo(total);
  const prepared = run.prepared;
  // Rich-text documents first, so the owners' foreign keys find them.
  const docIds = prepared.flatMap((p) => p.docs ?? []);
  if (docIds.length > 0) {
    const doc = catalog.type(DOCUMENT_TYPE);
    const secret = doc.byName.get(DOCUMENT_SECRET)!;
    const first = await allocatePublicIds(ctx.tx, doc.id, docIds.length);
    const b = new SqlBuilder();
    await insertRows(
      ctx.tx,
      doc,
      docIds,
      first,
      [(secret.storage as { col: string }).col],
      [docIds.map(() => randomUUID())],
      undefined,
      b,
    );
  }
  const cols = [...run.cols];
  // Results built here when every value prints as it reads; else by the database.
  const exact = run.exact;
  if (exact && headRow) return copyCreated(ctx, type, run, cols, headRow);
  const values = columnValues(prepared, cols.length);
  // Public ids already taken by the head statement stay this run's.
  const first = headRow?.first ?? (await allocatePublicIds(ctx.tx, type.id, prepared.length));
  const b = new SqlBuilder();
  const returning = exact ? undefined : entityJson(catalog, type, 'r0', ctx.user, b);
  // What listens to the type is learnt along the way: a caller without use for results learns if
  // it may skip them, and the command's own look-up of its listeners (listeners.ts) needs no
  // statement of its own.
  const learn = exact && ctx.listening !== undefined && !ctx.listening.has(type.name);
  let rows: Row[];
  try {
    rows = await insertRows(
      ctx.tx,
      type,
      prepared.map((p) => p.id),
      first,
      cols,
      values,
      returning,
      b,
      learn ? type.name : undefined,
      creatorField(type) ? ctx.user.id : undefined,
    );
  } catch (error) {
    try {
      mapDbError(error, `Creating ${type.name}`);
    } catch (mapped) {
      if (mapped instanceof WorkspaceError) mapped.index = offendingRow(error, cols, values);
      throw mapped;
    }
  }
  if (learn) {
    const head = rows[0] as Row & Listening;
    ctx.listening!.set(type.name, { webhooks: head.webhooks, automations: head.automations });
  }
  if (unheard(ctx, type)) return prepared.map(() => null);
  let results: Row[];
  if (exact) {
    const micros = Number(rows[0]!.us as string);
    const shape = resultShape(type, ctx.user, run.slotOf);
    results = prepared.map((p, i) =>
      createdResult(shape, p.id, String(first + i), isoFromMicros(micros + i + 1), p.values),
    );
  } else {
    const byId = new Map(rows.map((r) => [r.id as string, r.r as Row]));
    results = prepared.map((p) => byId.get(p.id)!);
  }
  // Effects are for listeners: none is recorded for a type known to have none.
  if (!quiet(ctx, type.name))
    for (let i = 0; i < prepared.length; i++)
      ctx.effects.push({
        effect: 'svc.entity/create',
        id: prepared[i]!.id,
        type: type.name,
        values: results[i],
      });
  return results;
}

/**
 * The columns a run of creates sets, known from its entities' field names alone (the union that
 * preparing every row gives), so that its COPY can start before every row is checked. Undefined
 * where a row needs more than its COPY (rich text: documents go in first), where a field's values
 * never print as they read (JSON), and where an entity is not an object or names a field it cannot
 * set: checking every row first then reports it as it always did.
 */
function streamColumns(
  type: TypeDef,
  plan: CreatePlan,
  entities: unknown[] | CreateRows,
): string[] | undefined {
  if (plan.after.some((a) => a.richText)) return undefined;
  const names = new Set<string>(Array.isArray(entities) ? [] : entities.names);
  // Rows mostly name the same fields in the same order: only a new order adds names.
  let last: string[] = [];
  for (const entity of Array.isArray(entities) ? entities : []) {
    if (!isObject(entity)) return undefined;
    const keys = Object.keys(entity);
    if (sameNames(keys, last)) continue;
    for (const name of keys) names.add(name);
    last = keys;
  }
  const cols: string[] = [];
  for (const name of names) {
    if (name === 'svc/id' || READONLY.has(name)) continue;
    const f = type.byName.get(name);
    if (!f || f.kind === 'many' || f.storage.kind !== 'column' || plan.richText.has(f)) return undefined;
    if (f.kind === 'primitive' && neverExact(f.fieldType)) return undefined;
    cols.push(f.storage.col);
  }
  // A default is set on every row that lacks the field.
  for (const { f, col } of plan.after) {
    const d = f.meta['svc/default-value'];
    if (d !== undefined && d !== null && !cols.includes(col)) cols.push(col);
  }
  return cols;
}

/** Known, in this transaction, to have no webhook and no automation listening to it. */
function quiet(ctx: CommandContext, typeName: string): boolean {
  const l = ctx.listening?.get(typeName);
  return l !== undefined && !l.webhooks && !l.automations;
}

/** The caller reads no results (createResults: false) and nothing listens to the type: none is built. */
function unheard(ctx: CommandContext, type: TypeDef): boolean {
  return ctx.createResults === false && quiet(ctx, type.name);
}

/** Runs of creates this long or longer go through COPY where the engine takes it. */
export const COPY_MIN_ROWS = 50;

/** Rows per CopyData message: the database starts on the first while the next are written. */
export const COPY_SLICE = 250;

interface CopyHead {
  /** the first of the run's public ids */
  first: number;
  /** the creation time before the first row, in microseconds since the epoch */
  micros: number;
}

/** A string as an SQL literal that reads the same whatever standard_conforming_strings says. */
const literal = (s: string) => `E'${s.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;

/**
 * Public ids and the creation time before the first row, in one round trip: the same numbers as
 * allocatePublicIds and insertRows' base time; within a command, also what listens to the type,
 * which the command would otherwise look up after its work (listeners.ts). With `token` (an
 * unchecked catalog's), it also checks the schema token and does nothing if it changed (the
 * answer is then undefined); it then has no parameters, so that BEGIN goes with it.
 */
async function copyHead(
  ctx: CommandContext,
  type: TypeDef,
  n: number,
  token?: string,
): Promise<CopyHead | undefined> {
  const learn = ctx.listening !== undefined && !ctx.listening.has(type.name);
  const [id, count, names] =
    token === undefined ? ['$1', '$2', '$3'] : [literal(type.id), String(n), `ARRAY[${literal(type.name)}]`];
  const fresh =
    token === undefined
      ? ''
      : ` AND EXISTS (SELECT 1 FROM svc_meta WHERE key = 'schema_token' AND value = ${literal(token)})`;
  const params = token !== undefined ? [] : learn ? [type.id, n, [type.name]] : [type.id, n];
  const { rows: head } = await ctx.tx.query<{ first: number; us: string } & Listening>(
    `WITH ids AS (UPDATE svc_types SET next_public_id = next_public_id + ${count} WHERE id = ${id}${fresh}
       RETURNING (next_public_id - ${count})::int8 AS first)
     SELECT ids.first, floor(extract(epoch FROM GREATEST(clock_timestamp(),
       (SELECT max(created) FROM ${type.table}))) * 1000000)::int8::text AS us
       ${learn ? `, ${watchedSql(names, names)}` : ''} FROM ids`,
    params,
  );
  if (head.length === 0) return undefined;
  if (learn) {
    ctx.listening!.set(type.name, { webhooks: head[0]!.webhooks, automations: head[0]!.automations });
  }
  return { first: Number(head[0]!.first), micros: Number(head[0]!.us) };
}

/**
 * The many-row create through COPY: the same rows, public ids and creation times as insertRows,
 * but the server reads them as COPY data instead of planning an INSERT over unnested arrays,
 * which is most of a bulk insert's server time. Only for rows whose results are built here
 * (COPY returns no rows); the same constraint errors come back, mapped the same way. The rows go
 * out in COPY's binary format (the server parses no text), in slices as they are made, and the
 * results are built while the database takes them. Every value of an exact row has a binary form
 * (copy-binary.ts); one without would abandon the COPY as a row found not exact does.
 */
async function copyCreated(
  ctx: CommandContext,
  type: TypeDef,
  rows: Preparer,
  cols: string[],
  { first, micros }: CopyHead,
): Promise<(Row | null)[]> {
  const { prepared } = rows;
  const ncols = cols.length;
  const types = binaryTypes(type, cols);
  const creator = creatorField(type) ? ctx.user.id : undefined;
  const fixed = creator === undefined ? FIXED_COLUMNS : [...FIXED_COLUMNS, CREATED_BY_COLUMN];
  /** every row made into COPY data (and so prepared) */
  let made = false;
  function* slices(n: number): Generator<Buffer> {
    const out = new BinaryRows();
    const fields = fixed.length + ncols;
    for (let start = 0; start < n; start += COPY_SLICE) {
      const end = Math.min(n, start + COPY_SLICE);
      // Rows not yet checked are checked now, while the database takes the slices before.
      rows.upTo(end);
      if (!rows.exact) throw new RowsNotExact();
      for (let i = start; i < end; i++) {
        const p = prepared[i]!;
        const us = micros + i + 1;
        out.row(fields);
        if (!out.value('uuid', p.id)) throw new RowsNotExact();
        out.text(String(first + i));
        out.micros(us);
        out.micros(us);
        if (creator !== undefined && !out.value('uuid', creator)) throw new RowsNotExact();
        // The COPY's columns are the run's first slots (see preparer's seed), in that order.
        for (let c = 0; c < ncols; c++) if (!out.value(types[c], p.values[c])) throw new RowsNotExact();
      }
      yield out.take();
    }
    yield BinaryRows.end();
    made = true;
  }
  const n = rows.total;
  // The command's last statement, with nothing listening to what it changed: COMMIT goes with it.
  const commit =
    ctx.endsCommand === true && quiet(ctx, type.name) && ctx.effects.every((e) => quiet(ctx, e.type));
  const copied = ctx.tx.copyIn!(type.table, [...fixed, ...cols], slices(n), {
    commit,
    binary: true,
  });
  const settled = async () => {
    try {
      await copied;
    } catch (error) {
      // A row that failed its check while the rows were made: its own error, with its index.
      if (error instanceof WorkspaceError || error instanceof RowsNotExact) throw error;
      try {
        mapDbError(error, `Creating ${type.name}`);
      } catch (mapped) {
        if (mapped instanceof WorkspaceError)
          mapped.index = offendingRow(error, cols, columnValues(prepared, ncols));
        throw mapped;
      }
    }
  };
  // The rows are made as they are sent, during the call where the connection is idle; else (or
  // when making them failed) the COPY is waited for before anything is built from them.
  if (!made) await settled();
  // Built while the database takes the rows (none for a caller that reads none and a type nothing
  // listens to); dropped with the transaction if the COPY fails.
  const none = unheard(ctx, type);
  if (none) {
    await settled();
    return prepared.map(() => null);
  }
  const shape = resultShape(type, ctx.user, rows.slotOf);
  // Effects are for listeners: none is recorded for a type known to have none.
  const heard = !quiet(ctx, type.name);
  const results: Row[] = new Array(n);
  const effects: Effect[] = new Array(heard ? n : 0);
  for (let i = 0; i < n; i++) {
    const p = prepared[i]!;
    const result = createdResult(shape, p.id, String(first + i), isoFromMicros(micros + i + 1), p.values);
    if (heard) effects[i] = { effect: 'svc.entity/create', id: p.id, type: type.name, values: result };
    results[i] = result;
  }
  if (ctx.answerJson) rememberJson(results, createdBatchJson(results));
  await settled();
  for (const e of effects) ctx.effects.push(e);
  return results;
}

/** The columns every created row sets, before those of its fields, in the order COPY sends them. */
const FIXED_COLUMNS = ['id', 'public_id', 'created', 'modified'];

/**
 * The binary COPY type of each of a type's storage columns `cols`: its primitive's column type, a
 * uuid for a to-one field's key; undefined for a column binary COPY does not carry (JSON), whose
 * values only go through COPY as null (no other JSON value is exact).
 */
function binaryTypes(type: TypeDef, cols: readonly string[]): (BinaryType | undefined)[] {
  const byCol = new Map<string, FieldDef>();
  for (const f of type.fields) if (f.storage.kind === 'column') byCol.set(f.storage.col, f);
  return cols.map((col) => {
    const f = byCol.get(col);
    const sqlType = f ? fieldColumnType(f) : '';
    return isBinaryType(sqlType) ? sqlType : undefined;
  });
}

/** The prepared rows' values of their first `ncols` slots, column by column (null where a row sets none). */
function columnValues(prepared: Prepared[], ncols: number): unknown[][] {
  return Array.from({ length: ncols }, (_, c) => prepared.map((p) => p.values[c] ?? null));
}
