import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/driver.js';
import { deleteOwnedContent } from '../entities/owned-content.js';
import { badRequest, conflict, WorkspaceError } from '../errors.js';
import {
  type Catalog,
  DOCUMENT_SECRET,
  DOCUMENT_TYPE,
  type FieldDef,
  type FieldKind,
  isPrimitiveType,
  loadCatalog,
  type PrimitiveType,
  type Storage,
  type TypeDef,
  USER_TYPE,
} from './catalog.js';
import { ensureApps } from './apps.js';
import { CREATED_BY, CREATED_BY_COLUMN, CREATED_BY_META, takesCreator } from './created-by.js';
import { COLUMN_TYPE, isUuid } from './values.js';

// The schema's behaviour over storage: every change is DDL plus a catalog row, inside the caller's
// transaction, and bumps the schema token so every process reloads its catalog.

export const MANDATORY_FIELDS: Record<string, { type: string; col: string; meta: Record<string, unknown> }> =
  {
    'svc/id': {
      type: 'svc/uuid',
      col: 'id',
      meta: { 'svc/id?': true, 'svc/readonly?': true, 'svc/secured?': false },
    },
    'svc/public-id': {
      type: 'svc/text',
      col: 'public_id',
      meta: { 'svc/public-id?': true, 'svc/readonly?': true },
    },
    'svc/creation-date': {
      type: 'svc/date-time',
      col: 'created',
      meta: { 'svc/creation-date?': true, 'svc/readonly?': true, 'svc/default-value': '$now' },
    },
    'svc/modification-date': {
      type: 'svc/date-time',
      col: 'modified',
      meta: {
        'svc/modification-date?': true,
        'svc/required?': true,
        'svc/readonly?': true,
        'svc/default-value': '$now',
      },
    },
  };

/**
 * A field a type is made with (the mandatory ones; svc/created-by where the type takes it): a
 * definition of it in schema.type/create only gives its id and meta.
 */
const madeWithType = (name: string) => MANDATORY_FIELDS[name] !== undefined || name === CREATED_BY;

// `<app>/<name>`; enum type names join two such names with `_` and so hold two slashes. Spaces
// are names' own (`Customer orders/Order`), as in the service.
const NAME_RE = /^[^/\s].*\/.*[^/\s]$/s;

/** A type or field name the schema takes: `<app>/<name>`, at most 200 characters. */
export const isSchemaName = (name: unknown): name is string =>
  typeof name === 'string' && NAME_RE.test(name) && !name.includes('\0') && name.length <= 200;

export function checkName(what: string, name: unknown): string {
  if (!isSchemaName(name)) {
    throw badRequest(
      `${what} must be a string of the form <app>/<name>, got ${JSON.stringify(name)}`,
      'invalid-args',
    );
  }
  return name;
}

const asMeta = (v: unknown): Record<string, unknown> => {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v))
    throw badRequest('svc/meta must be an object', 'invalid-args');
  return v as Record<string, unknown>;
};

async function nextName(tx: Queryable, prefix: string): Promise<string> {
  const { rows } = await tx.query<{ n: number }>(`SELECT nextval('svc_name_seq')::int AS n`);
  return `${prefix}${rows[0]!.n}`;
}

export async function touchSchema(tx: Queryable): Promise<void> {
  await tx.query(`UPDATE svc_meta SET value = gen_random_uuid()::text WHERE key = 'schema_token'`);
  await tx.query(`UPDATE svc_meta SET value = (value::bigint + 1)::text WHERE key = 'schema_version'`);
}

/** Reserves `n` consecutive public ids of a type; returns the first. */
export async function allocatePublicIds(tx: Queryable, typeId: string, n: number): Promise<number> {
  const { rows } = await tx.query<{ first: number }>(
    `UPDATE svc_types SET next_public_id = next_public_id + $2 WHERE id = $1 RETURNING (next_public_id - $2)::int8 AS first`,
    [typeId, n],
  );
  return Number(rows[0]!.first);
}

export interface TypeInput {
  name: unknown;
  id?: unknown;
  meta?: unknown;
  fields?: unknown;
  description?: unknown;
  builtin?: boolean;
}

export async function createType(tx: Queryable, input: TypeInput): Promise<TypeDef> {
  const name = checkName('svc/name', input.name);
  let catalog = await loadCatalog(tx);
  if (catalog.findType(name)) throw conflict(`Type ${name} already exists`);
  const id = input.id === undefined || input.id === null ? randomUUID() : input.id;
  if (!isUuid(id)) throw badRequest('svc/id must be a uuid', 'invalid-args');
  const { rows: taken } = await tx.query(`SELECT 1 FROM svc_types WHERE id = $1`, [id]);
  if (taken.length > 0) throw conflict(`A type with svc/id ${id} already exists`);
  const meta = { 'svc/domain?': false, 'ui/color': '#000000', ...asMeta(input.meta) };
  if (input.fields !== undefined && !Array.isArray(input.fields))
    throw badRequest('svc/fields must be an array', 'invalid-args');
  const fields = (input.fields ?? []) as unknown[];
  const table = await nextName(tx, 't_');
  const users = takesCreator(meta, input.builtin === true) ? catalog.findType(USER_TYPE) : undefined;
  await tx.query(
    `CREATE TABLE ${table} (id uuid PRIMARY KEY, public_id text NOT NULL,
      created timestamptz NOT NULL DEFAULT now(), modified timestamptz NOT NULL DEFAULT now()${
        users ? `, ${CREATED_BY_COLUMN} uuid` : ''
      })`,
  );
  await tx.query(`CREATE INDEX ${table}_order ON ${table} (created, id)`);
  await tx.query(`CREATE INDEX ${table}_public ON ${table} (public_id)`);
  await tx.query(
    `INSERT INTO svc_types (id, name, tbl, meta, description, builtin) VALUES ($1, $2, $3, $4, $5, $6)`,
    [
      id,
      name,
      table,
      JSON.stringify(meta),
      typeof input.description === 'string' ? input.description : null,
      input.builtin ?? false,
    ],
  );
  // The mandatory fields map onto the table's fixed columns; a definition given for one keeps its id and meta.
  const given = new Map<string, Record<string, unknown>>();
  for (const f of fields) {
    if (typeof f !== 'object' || f === null)
      throw badRequest('each of svc/fields must be an object', 'invalid-args');
    const n = (f as Record<string, unknown>)['svc/name'];
    if (typeof n === 'string' && madeWithType(n)) given.set(n, f as Record<string, unknown>);
  }
  const creator = given.get(CREATED_BY);
  await insertFields(tx, [
    ...Object.entries(MANDATORY_FIELDS).map(([fname, def]) => {
      const g = given.get(fname);
      const fid = g?.['svc/id'] ?? randomUUID();
      if (!isUuid(fid)) throw badRequest('svc/id of a field must be a uuid', 'invalid-args');
      return {
        id: fid,
        typeId: id,
        name: fname,
        fieldType: def.type,
        kind: 'primitive' as const,
        target: null,
        storage: { kind: 'column' as const, col: def.col },
        meta: { ...def.meta, ...asMeta(g?.['svc/meta']) },
      };
    }),
    ...(users ? [creatorRow(id, users.id, creator?.['svc/id'], creator?.['svc/meta'])] : []),
  ]);
  // The other fields in order: each run of primitive ones made at once (one ALTER TABLE, one
  // catalog insert), the others one by one by createField, which reads the catalog, so the schema
  // is touched (and the catalog reloaded) only before those and once at the end, not per field.
  const holder = { id, name, table };
  const names = new Set(Object.keys(MANDATORY_FIELDS));
  if (users) names.add(CREATED_BY);
  // A definition of svc/created-by for a type that takes none (a built-in or option type) is
  // dropped with the mandatory ones': it names the service's own field, not one to make.
  const rest = fields
    .map((f) => f as Record<string, unknown>)
    .filter((r) => !(typeof r['svc/name'] === 'string' && madeWithType(r['svc/name'])));
  const fieldInput = (r: Record<string, unknown>): FieldInput => ({
    holderType: name,
    name: r['svc/name'],
    type: r['svc/type'],
    meta: r['svc/meta'],
    id: r['svc/id'],
  });
  const primitive = (r: Record<string, unknown> | undefined) =>
    typeof r?.['svc/type'] === 'string' && isPrimitiveType(r['svc/type']);
  let pending = true;
  for (let i = 0; i < rest.length; ) {
    if (primitive(rest[i])) {
      let end = i;
      while (primitive(rest[end])) end++;
      await addColumnFields(tx, holder, names, rest.slice(i, end).map(fieldInput));
      pending = true;
      i = end;
      continue;
    }
    if (pending) await touchSchema(tx);
    const made = await createField(tx, await loadCatalog(tx), fieldInput(rest[i] as Record<string, unknown>));
    names.add(made.name);
    pending = false;
    i++;
  }
  if (pending) await touchSchema(tx);
  catalog = await loadCatalog(tx);
  if (input.builtin !== true) await ensureApps(tx, catalog, [name]);
  return catalog.type(name);
}

/** The catalog row of a type's svc/created-by (`id` and `meta` as given for it, if they were). */
function creatorRow(typeId: string, usersId: string, id: unknown, meta: unknown): FieldRowInput {
  const fid = id ?? randomUUID();
  if (!isUuid(fid)) throw badRequest('svc/id of a field must be a uuid', 'invalid-args');
  return {
    id: fid,
    typeId,
    name: CREATED_BY,
    fieldType: 'ref',
    kind: 'one',
    target: usersId,
    storage: { kind: 'column', col: CREATED_BY_COLUMN },
    meta: { ...CREATED_BY_META, ...asMeta(meta) },
  };
}

/**
 * Gives svc/created-by to the types that take one and lack it: those of a workspace made before
 * it existed. Their entities' creator is not known: it reads as empty. Answers whether any was added.
 */
export async function addMissingCreators(tx: Queryable, catalog: Catalog): Promise<boolean> {
  const users = catalog.findType(USER_TYPE);
  if (!users) return false;
  const lacking = catalog.types.filter((t) => takesCreator(t.meta, t.builtin) && !t.byName.has(CREATED_BY));
  if (lacking.length === 0) return false;
  for (const t of lacking)
    await tx.query(`ALTER TABLE ${t.table} ADD COLUMN IF NOT EXISTS ${CREATED_BY_COLUMN} uuid`);
  await insertFields(
    tx,
    lacking.map((t) => creatorRow(t.id, users.id, undefined, undefined)),
  );
  await touchSchema(tx);
  return true;
}

interface FieldRowInput {
  id: string;
  typeId: string;
  name: string;
  fieldType: string;
  kind: FieldKind;
  target: string | null;
  storage: Storage;
  meta: Record<string, unknown>;
}

/** Catalog rows of new fields, in order (their `ord`), in one statement; an id in use is refused. */
async function insertFields(tx: Queryable, fields: FieldRowInput[]): Promise<void> {
  const ids = new Set<string>();
  for (const f of fields) {
    const key = f.id.toLowerCase();
    if (ids.has(key)) throw conflict(`A field with svc/id ${f.id} already exists`);
    ids.add(key);
  }
  const { rows } = await tx.query<{ id: string }>(
    `SELECT id::text AS id FROM svc_fields WHERE id IN (${fields.map((_, i) => `$${i + 1}`).join(', ')})`,
    fields.map((f) => f.id),
  );
  if (rows[0]) {
    const taken = fields.find((f) => f.id.toLowerCase() === rows[0]?.id.toLowerCase()) ?? fields[0];
    throw conflict(`A field with svc/id ${taken?.id} already exists`);
  }
  const values: unknown[] = [];
  const tuples = fields.map((f) => {
    const at = values.length;
    values.push(f.id, f.typeId, f.name, f.fieldType, f.target, f.kind);
    values.push(JSON.stringify(f.storage), JSON.stringify(f.meta));
    return `(${Array.from({ length: 8 }, (_, k) => `$${at + k + 1}`).join(', ')})`;
  });
  await tx.query(
    `INSERT INTO svc_fields (id, type_id, name, field_type, target_type, kind, storage, meta)
     VALUES ${tuples.join(', ')}`,
    values,
  );
}

const insertField = (tx: Queryable, f: FieldRowInput) => insertFields(tx, [f]);

/**
 * Primitive fields of one type made at once: their columns in one ALTER TABLE, their catalog rows
 * in one insert. `names` holds the type's field names so far (the new ones are added). The schema
 * is not touched: the caller does, once it is done.
 */
async function addColumnFields(
  tx: Queryable,
  holder: { id: string; name: string; table: string },
  names: Set<string>,
  inputs: FieldInput[],
): Promise<void> {
  if (inputs.length === 0) return;
  const fields = inputs.map((input) => {
    const name = checkName('svc/name', input.name);
    if (names.has(name)) throw conflict(`Type ${holder.name} already has a field ${name}`);
    names.add(name);
    const meta = asMeta(input.meta);
    const id = input.id === undefined || input.id === null ? randomUUID() : input.id;
    if (!isUuid(id)) throw badRequest('svc/id of a field must be a uuid', 'invalid-args');
    return { id, name, type: input.type as PrimitiveType, meta };
  });
  const { rows } = await tx.query<{ n: number }>(
    `SELECT nextval('svc_name_seq')::int AS n FROM generate_series(1, $1::int)`,
    [fields.length],
  );
  const cols = rows.map((r) => `f_${r.n}`);
  await tx.query(
    `ALTER TABLE ${holder.table} ${fields.map((f, i) => `ADD COLUMN ${cols[i]} ${COLUMN_TYPE[f.type]}`).join(', ')}`,
  );
  await insertFields(
    tx,
    fields.map((f, i) => ({
      id: f.id,
      typeId: holder.id,
      name: f.name,
      fieldType: f.type,
      kind: 'primitive' as const,
      target: null,
      storage: { kind: 'column' as const, col: cols[i] as string },
      meta: f.meta,
    })),
  );
  for (const [i, f] of fields.entries())
    if (f.meta['ui/title?'] === true)
      await tx.query(`CREATE INDEX ${holder.table}_${cols[i]} ON ${holder.table} (${cols[i]})`);
}

export interface FieldInput {
  holderType: unknown;
  name: unknown;
  type: unknown;
  meta?: unknown;
  id?: unknown;
}

export async function createField(tx: Queryable, catalog: Catalog, input: FieldInput): Promise<FieldDef> {
  const holder = catalog.type(input.holderType);
  const name = checkName('svc/name', input.name);
  if (holder.byName.has(name)) throw conflict(`Type ${holder.name} already has a field ${name}`);
  if (typeof input.type !== 'string') throw badRequest('svc/type must be a string', 'invalid-args');
  const meta = asMeta(input.meta);
  const id = input.id === undefined || input.id === null ? randomUUID() : input.id;
  if (!isUuid(id)) throw badRequest('svc/id of a field must be a uuid', 'invalid-args');
  const type = input.type;
  if (isPrimitiveType(type)) {
    await addColumnFields(tx, holder, new Set(holder.byName.keys()), [{ ...input, id, meta }]);
    await touchSchema(tx);
    const after = await loadCatalog(tx);
    return after.field(after.type(holder.name), name);
  }
  const target = catalog.findType(type);
  if (!target) throw new WorkspaceError(400, 'unknown-type', `Unknown field type ${JSON.stringify(type)}`);
  const relation = meta['svc/relation'];
  if (relation !== undefined && !isUuid(relation))
    throw badRequest('svc/relation must be a uuid', 'invalid-args');
  const partner = relation
    ? catalog.types
        .flatMap((t) => t.fields)
        .find(
          (f) =>
            f.meta['svc/relation'] === relation && f.targetTypeId === holder.id && f.typeId === target.id,
        )
    : undefined;
  const many = meta['svc/collection?'] === true;
  let storage: Storage;
  if (!many) {
    const col = await nextName(tx, 'f_');
    await tx.query(
      `ALTER TABLE ${holder.table} ADD COLUMN ${col} uuid REFERENCES ${target.table}(id) ON DELETE SET NULL`,
    );
    await tx.query(`CREATE INDEX ${holder.table}_${col} ON ${holder.table} (${col})`);
    storage = { kind: 'column', col };
    if (partner && partner.kind === 'many' && partner.storage.kind === 'join') {
      // The collection side existed alone: its links move into this foreign key.
      const j = partner.storage;
      await tx.query(
        `UPDATE ${holder.table} h SET ${col} = j.${j.self} FROM ${j.table} j WHERE h.id = j.${j.other}`,
      );
      await tx.query(`DROP TABLE ${j.table}`);
      await tx.query(`UPDATE svc_fields SET storage = $2 WHERE id = $1`, [
        partner.id,
        JSON.stringify({ kind: 'reverse', partner: id }),
      ]);
    }
    if (target.name === DOCUMENT_TYPE) await createDocumentsFor(tx, catalog, holder, col);
  } else if (partner && partner.kind === 'one' && partner.storage.kind === 'column') {
    storage = { kind: 'reverse', partner: partner.id };
  } else if (partner && partner.kind === 'many' && partner.storage.kind === 'join') {
    storage = {
      kind: 'join',
      table: partner.storage.table,
      self: partner.storage.other,
      other: partner.storage.self,
    };
  } else {
    const table = await nextName(tx, 'j_');
    await tx.query(
      `CREATE TABLE ${table} (a uuid NOT NULL REFERENCES ${holder.table}(id) ON DELETE CASCADE,
        b uuid NOT NULL REFERENCES ${target.table}(id) ON DELETE CASCADE, PRIMARY KEY (a, b))`,
    );
    await tx.query(`CREATE INDEX ${table}_b ON ${table} (b)`);
    storage = { kind: 'join', table, self: 'a', other: 'b' };
  }
  await insertField(tx, {
    id,
    typeId: holder.id,
    name,
    fieldType: 'ref',
    kind: many ? 'many' : 'one',
    target: target.id,
    storage,
    meta,
  });
  await touchSchema(tx);
  const after = await loadCatalog(tx);
  return after.field(after.type(holder.name), name);
}

/** A rich-text field gets one document entity per existing entity of its type. */
async function createDocumentsFor(
  tx: Queryable,
  catalog: Catalog,
  holder: TypeDef,
  col: string,
): Promise<void> {
  const doc = catalog.type(DOCUMENT_TYPE);
  const secret = doc.byName.get(DOCUMENT_SECRET);
  if (secret?.storage.kind !== 'column') return;
  const { rows } = await tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${holder.table}`);
  const n = rows[0]!.n;
  if (n === 0) return;
  const first = await allocatePublicIds(tx, doc.id, n);
  await tx.query(
    `WITH owners AS (SELECT id AS owner, gen_random_uuid() AS doc, row_number() OVER (ORDER BY created, id) AS k
                     FROM ${holder.table}),
          ins AS (INSERT INTO ${doc.table} (id, public_id, ${secret.storage.col})
                  SELECT doc, ($1::int8 + k - 1)::text, gen_random_uuid() FROM owners)
     UPDATE ${holder.table} h SET ${col} = owners.doc FROM owners WHERE h.id = owners.owner`,
    [first],
  );
}

/** Whether any entity has a value (or link) in this field. */
export async function fieldHasValues(tx: Queryable, catalog: Catalog, field: FieldDef): Promise<boolean> {
  const holder = catalog.typeById(field.typeId);
  let sql: string;
  if (field.storage.kind === 'column') {
    sql = `SELECT 1 FROM ${holder.table} WHERE ${field.storage.col} IS NOT NULL LIMIT 1`;
  } else if (field.storage.kind === 'join') {
    sql = `SELECT 1 FROM ${field.storage.table} LIMIT 1`;
  } else {
    const partner = catalog.fieldById(field.storage.partner);
    if (partner?.storage.kind !== 'column') return false;
    sql = `SELECT 1 FROM ${catalog.typeById(partner.typeId).table} WHERE ${partner.storage.col} IS NOT NULL LIMIT 1`;
  }
  const { rows } = await tx.query(sql);
  return rows.length > 0;
}

/** Drops a field's storage and catalog row; a relation goes as a pair (both of its fields). */
export async function dropField(tx: Queryable, catalog: Catalog, field: FieldDef): Promise<void> {
  const partner = catalog.partner(field);
  for (const f of partner ? [field, partner] : [field]) {
    const holder = catalog.typeById(f.typeId);
    if (f.storage.kind === 'column') {
      await tx.query(`ALTER TABLE ${holder.table} DROP COLUMN IF EXISTS ${f.storage.col}`);
    } else if (f.storage.kind === 'join') {
      await tx.query(`DROP TABLE IF EXISTS ${f.storage.table}`);
    }
    await tx.query(`DELETE FROM svc_fields WHERE id = $1`, [f.id]);
  }
  await touchSchema(tx);
}

export async function deleteField(
  tx: Queryable,
  catalog: Catalog,
  holderType: unknown,
  name: unknown,
  deleteValues: boolean,
): Promise<void> {
  const holder = catalog.type(holderType);
  const field = catalog.field(holder, name);
  if (MANDATORY_FIELDS[field.name] || field.name === CREATED_BY)
    throw badRequest(`Field ${field.name} is mandatory and cannot be deleted`, 'invalid-args');
  if (!deleteValues && (await fieldHasValues(tx, catalog, field))) {
    throw conflict(
      `Field ${field.name} of ${holder.name} has values; pass delete-values? true to delete them`,
      'not-empty',
    );
  }
  await dropField(tx, catalog, field);
}

export async function deleteType(
  tx: Queryable,
  catalog: Catalog,
  name: unknown,
  deleteEntities: boolean,
  deleteRelated: boolean,
): Promise<void> {
  const type = catalog.type(name);
  if (type.builtin)
    throw badRequest(`Type ${type.name} belongs to the service and cannot be deleted`, 'invalid-args');
  const related = catalog.types
    .filter((t) => t.id !== type.id)
    .flatMap((t) => t.fields)
    .filter((f) => f.targetTypeId === type.id);
  const { rows } = await tx.query(`SELECT 1 FROM ${type.table} LIMIT 1`);
  if (rows.length > 0 && !deleteEntities) {
    throw conflict(`Type ${type.name} has entities; pass delete-entities? true to delete them`, 'not-empty');
  }
  if (related.length > 0 && !deleteRelated) {
    throw conflict(
      `Type ${type.name} is the target of ${related.map((f) => f.name).join(', ')}; pass delete-related-fields? true`,
      'not-empty',
    );
  }
  // Rich-text documents and comments go with the entities (the tables alone would leave them).
  if (rows.length > 0) await deleteOwnedContent(tx, catalog, type);
  let current = catalog;
  for (const f of related) {
    const still = current.fieldById(f.id);
    if (!still) continue;
    await dropField(tx, current, still);
    current = await loadCatalog(tx);
  }
  const own = current.typeById(type.id);
  for (const f of own.fields) {
    if (f.storage.kind === 'join') await tx.query(`DROP TABLE IF EXISTS ${f.storage.table}`);
  }
  // Fields of other types pointing here are gone; CASCADE removes foreign keys of self relations only.
  await tx.query(`DROP TABLE ${type.table} CASCADE`);
  await tx.query(`DELETE FROM svc_types WHERE id = $1`, [type.id]);
  await touchSchema(tx);
}

export async function renameType(tx: Queryable, catalog: Catalog, from: unknown, to: unknown): Promise<void> {
  const type = catalog.type(from);
  const name = checkName('to-name', to);
  if (catalog.findType(name)) throw conflict(`Type ${name} already exists`);
  await tx.query(`UPDATE svc_types SET name = $2 WHERE id = $1`, [type.id, name]);
  // A type moved into another space makes that space if it is new.
  if (!type.builtin) await ensureApps(tx, catalog, [name]);
  await touchSchema(tx);
}

export async function renameField(
  tx: Queryable,
  catalog: Catalog,
  holderType: unknown,
  from: unknown,
  to: unknown,
): Promise<void> {
  const holder = catalog.type(holderType);
  const field = catalog.field(holder, from);
  if (MANDATORY_FIELDS[field.name] || field.name === CREATED_BY)
    throw badRequest(`Field ${field.name} is mandatory and cannot be renamed`, 'invalid-args');
  const name = checkName('to-name', to);
  if (holder.byName.has(name)) throw conflict(`Type ${holder.name} already has a field ${name}`);
  await tx.query(`UPDATE svc_fields SET name = $2 WHERE id = $1`, [field.id, name]);
  await touchSchema(tx);
}

/** A meta key a command may set or delete: `fixed` ones are the shape, set when it is made. */
function metaKey(key: unknown, fixed: readonly string[]): string {
  if (typeof key !== 'string' || key.length === 0)
    throw badRequest('key must be a non-empty string', 'invalid-args');
  if (fixed.includes(key)) throw badRequest(`${key} is fixed when it is created`, 'invalid-args');
  return key;
}
const FIXED_FIELD_META = ['svc/relation', 'svc/collection?'];
// Enum types are made by schema.enum/create, mixins by svc.app/install-mixins.
const FIXED_TYPE_META = ['svc/enum?', 'app/mixins'];

export async function setFieldMeta(
  tx: Queryable,
  catalog: Catalog,
  holderType: unknown,
  name: unknown,
  key: unknown,
  value: unknown,
): Promise<void> {
  const holder = catalog.type(holderType);
  const field = catalog.field(holder, name);
  await tx.query(
    `UPDATE svc_fields SET meta = meta || jsonb_build_object($2::text, $3::jsonb) WHERE id = $1`,
    [field.id, metaKey(key, FIXED_FIELD_META), JSON.stringify(value ?? null)],
  );
  await touchSchema(tx);
}

/** schema.field/delete-meta: the key removed from the field's meta (nothing when it has none). */
export async function deleteFieldMeta(
  tx: Queryable,
  catalog: Catalog,
  holderType: unknown,
  name: unknown,
  key: unknown,
): Promise<void> {
  const field = catalog.field(catalog.type(holderType), name);
  await tx.query(`UPDATE svc_fields SET meta = meta - $2::text WHERE id = $1`, [
    field.id,
    metaKey(key, FIXED_FIELD_META),
  ]);
  await touchSchema(tx);
}

/** schema.type/set-meta: one key of a type's meta set to `value`. */
export async function setTypeMetaKey(
  tx: Queryable,
  catalog: Catalog,
  name: unknown,
  key: unknown,
  value: unknown,
) {
  const type = catalog.type(name);
  await setTypeMeta(tx, type.id, { [metaKey(key, FIXED_TYPE_META)]: value ?? null });
}

export async function setTypeMeta(
  tx: Queryable,
  typeId: string,
  patch: Record<string, unknown>,
): Promise<void> {
  await tx.query(`UPDATE svc_types SET meta = meta || $2::jsonb WHERE id = $1`, [
    typeId,
    JSON.stringify(patch),
  ]);
  await touchSchema(tx);
}
