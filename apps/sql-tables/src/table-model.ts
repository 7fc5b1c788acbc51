// Turns the catalog's description of tables into the app's types: which column is the id,
// which the title, how each column is read, which foreign keys become relations, and whether
// the table supports delta sync (an `updated_at` column) with which removals.
import { type SchemaFieldDefinition, type SchemaFields, field } from '@weft/core';
import { type ColumnReader, columnReader, identityReader, isTitleType } from './column-fields.js';
import { DELETIONS_TABLE, type ColumnInfo, type TableInfo } from './introspect.js';
import { ident } from './sql.js';

/** One field of a table's type and how it is read. */
export interface FieldModel {
  id: string;
  /** The column, or null for the id of a multi-column key. */
  column: string | null;
  definition: SchemaFieldDefinition;
  reader: ColumnReader;
}

export interface TableModel {
  typeId: string;
  table: TableInfo;
  fields: FieldModel[];
  /** The primary key's columns, in order: the id, and the order rows are read in. */
  key: ColumnInfo[];
  /** Whether the title is made up from the id (the table has no text column to show). */
  syntheticTitle: boolean;
  /** Delta sync: the `updated_at` column and how removals are found. */
  delta?: {
    updatedAt: string;
    softDelete?: { column: string; kind: 'timestamp' | 'bool' };
    /** The deletions table of the table's schema, when it has one. */
    deletions?: string;
  };
}

const UPDATED_AT = ['updated_at', 'updatedat', 'modified_at', 'last_modified', 'changed_at'];
const SOFT_DELETE_TIME = ['deleted_at', 'deletedat', 'removed_at', 'archived_at'];
const SOFT_DELETE_BOOL = ['deleted', 'is_deleted', 'isdeleted'];
const TITLE_COLUMNS = [
  'name',
  'title',
  'label',
  'subject',
  'display_name',
  'full_name',
  'username',
  'email',
  'code',
];
/** Field ids core reserves or gives a role. */
const RESERVED = new Set(['id', 'name', '__syncAction']);

/**
 * The types of these tables. A table needs a primary key (rows are read in key order, a page at a
 * time); tables without one are left out, as is the deletions table. Type ids are the table
 * names, qualified with the schema when the account reads more than one.
 */
export function tableModels(tables: readonly TableInfo[], schemas: readonly string[]): TableModel[] {
  const qualify = schemas.length > 1;
  const typeIdOf = (schema: string, table: string) => (qualify ? `${schema}.${table}` : table);
  const usable = tables.filter((t) => t.primaryKey.length > 0 && t.name !== DELETIONS_TABLE);
  const known = new Map(usable.map((t) => [`${t.schema}.${t.name}`, t]));
  const hasDeletions = new Set(
    tables
      .filter(
        (t) =>
          t.name === DELETIONS_TABLE &&
          ['table_name', 'row_id', 'deleted_at'].every((c) => t.columns.some((col) => col.name === c)),
      )
      .map((t) => t.schema),
  );
  // How often each (table → target) pair occurs: a second foreign key to the same table needs
  // its own name on the target side.
  const pairs = new Map<string, number>();
  for (const t of usable) {
    for (const fk of t.foreignKeys) {
      const pair = `${t.schema}.${t.name}>${fk.targetSchema}.${fk.targetTable}`;
      pairs.set(pair, (pairs.get(pair) ?? 0) + 1);
    }
  }

  return usable.map((table) => {
    const byName = new Map(table.columns.map((c) => [c.name, c]));
    const key = table.primaryKey.map((c) => byName.get(c)!);
    const fields: FieldModel[] = [];
    const used = new Set<string>();
    const add = (
      id: string,
      column: string | null,
      definition: SchemaFieldDefinition,
      reader: ColumnReader,
    ) => {
      used.add(id);
      fields.push({ id, column, definition, reader });
    };

    // The id: the key column itself, or the key's values as a JSON array for a multi-column key.
    const single = key.length === 1 ? key[0]! : null;
    const singleColumnReader = single ? columnReader(single.type, single.name) : undefined;
    const singleReader =
      single && singleColumnReader ? identityReader(singleColumnReader, single.type) : undefined;
    if (single && singleReader) {
      add('id', single.name, field.id({ name: titleCase(single.name) }), {
        ...singleReader,
        convert: (v) => singleReader.convert(v) ?? String(v),
      });
    } else {
      add('id', null, field.id(), { field: () => field.id(), select: () => 'NULL', convert: (v) => v });
    }

    // The title: a `name`-like text column, else one made from the id.
    const titleColumn = TITLE_COLUMNS.map((n) => byName.get(n)).find(
      (c) => c !== undefined && isTitleType(c.type) && !(key.length === 1 && c === single),
    );
    if (titleColumn) {
      const reader = columnReader(titleColumn.type, titleColumn.name)!;
      add(
        'name',
        titleColumn.name,
        field.title({ name: titleCase(titleColumn.name), ...describe(titleColumn) }),
        reader,
      );
    } else {
      add('name', null, field.title({ name: 'Name' }), {
        field: () => field.title(),
        select: () => 'NULL',
        convert: (v) => v,
      });
    }

    for (const column of table.columns) {
      if (column === titleColumn || (single && column === single && !isForeignKey(table, column.name)))
        continue;
      const reader = columnReader(column.type, column.name);
      if (!reader) continue;
      const id = uniqueId(column.name, used);
      const options = { name: titleCase(column.name), ...describe(column) };
      const fk = table.foreignKeys.find((f) => f.columns.length === 1 && f.columns[0] === column.name);
      const target = fk ? known.get(`${fk.targetSchema}.${fk.targetTable}`) : undefined;
      // A relation when the key points at a synced table's id (or one of its unique columns).
      if (fk && target) {
        const targetId =
          target.primaryKey.length === 1 && target.primaryKey[0] === fk.targetColumns[0] ? 'id' : undefined;
        if (targetId) {
          const many =
            (pairs.get(`${table.schema}.${table.name}>${fk.targetSchema}.${fk.targetTable}`) ?? 0) > 1;
          const unique = table.unique.some((u) => u.length === 1 && u[0] === column.name);
          add(
            id,
            column.name,
            field.relation({
              ...options,
              name: titleCase(column.name.replace(/_?id$|_?code$|_?key$/i, '') || column.name),
              to: typeIdOf(target.schema, target.name),
              cardinality: unique ? 'one-to-one' : 'many-to-one',
              targetName: many
                ? `${titleCase(table.name)} (${titleCase(column.name)})`
                : titleCase(table.name),
              targetFieldId: targetId,
            }),
            // The target's id, written as that id is (exact text past 2^53).
            identityReader(reader, column.type),
          );
          continue;
        }
      }
      add(id, column.name, reader.field(options), reader);
    }

    const updatedAt = table.columns.find(
      (c) =>
        UPDATED_AT.includes(c.name.toLowerCase()) &&
        (c.type.name === 'timestamptz' || c.type.name === 'timestamp'),
    );
    const softTime = table.columns.find(
      (c) =>
        SOFT_DELETE_TIME.includes(c.name.toLowerCase()) &&
        (c.type.name === 'timestamptz' || c.type.name === 'timestamp'),
    );
    const softBool = table.columns.find(
      (c) => SOFT_DELETE_BOOL.includes(c.name.toLowerCase()) && c.type.name === 'bool',
    );
    const softDelete = softTime
      ? { column: softTime.name, kind: 'timestamp' as const }
      : softBool
        ? { column: softBool.name, kind: 'bool' as const }
        : undefined;
    const model: TableModel = {
      typeId: typeIdOf(table.schema, table.name),
      table,
      fields,
      key,
      syntheticTitle: !titleColumn,
    };
    if (updatedAt) {
      model.delta = {
        updatedAt: updatedAt.name,
        ...(softDelete ? { softDelete } : {}),
        ...(hasDeletions.has(table.schema)
          ? { deletions: `${ident(table.schema)}.${ident(DELETIONS_TABLE)}` }
          : {}),
      };
    }
    return model;
  });
}

/** The schema fields of a model. */
export function schemaFields(model: TableModel): SchemaFields {
  return Object.fromEntries(model.fields.map((f) => [f.id, f.definition]));
}

function isForeignKey(table: TableInfo, column: string): boolean {
  return table.foreignKeys.some((f) => f.columns.length === 1 && f.columns[0] === column);
}

function describe(column: ColumnInfo): { description?: string } {
  return column.comment ? { description: column.comment } : {};
}

/** A column's field id: its name, unless that is reserved or taken (`id` → `id_column`). */
function uniqueId(name: string, used: Set<string>): string {
  let id = RESERVED.has(name) || used.has(name) ? `${name}_column` : name;
  for (let i = 2; used.has(id); i++) id = `${name}_column_${i}`;
  return id;
}

/** `member_code` → `Member Code`, `updatedAt` → `Updated At`. */
export function titleCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[_\s.-]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join(' ');
}
