// Reads what the app needs to know about a database's tables from the system catalogs: columns
// and their types (domains resolved to their base type, enum labels), primary keys, unique
// columns, foreign keys and comments. One round trip per kind of fact, whatever the table count.
import { FINGERPRINT } from './catalog-fingerprint.js';
import type { Queryable } from './database.js';

/** What a column's type is, as far as the app cares. */
export interface ColumnType {
  /** The base type's name (`int4`, `timestamptz`, `book_genre`, `_text` for arrays). */
  name: string;
  /** `b` base, `e` enum, `r` range, `c` composite, `p` pseudo, `m` multirange. */
  typtype: string;
  /** Postgres type category: `N` numeric, `S` string, `D` date/time, `A` array, `E` enum, ... */
  category: string;
  /** The enum's labels, in their order. */
  labels?: string[];
  /** For arrays: the element type. */
  element?: ColumnType;
  /** For `numeric(p, s)`: s. */
  scale?: number;
  /** The type as SQL would write it (`integer`, `"public"."book_genre"`), for casts. */
  sql: string;
}

export interface ColumnInfo {
  name: string;
  notNull: boolean;
  type: ColumnType;
  comment: string | null;
}

export interface ForeignKey {
  columns: string[];
  targetSchema: string;
  targetTable: string;
  targetColumns: string[];
}

export interface TableInfo {
  schema: string;
  name: string;
  comment: string | null;
  /** The planner's estimate; -1 or 0 when the table was never analysed. */
  estimatedRows: number;
  columns: ColumnInfo[];
  primaryKey: string[];
  /** Sets of columns with a unique constraint (the primary key included). */
  unique: string[][];
  foreignKeys: ForeignKey[];
}

/** The table that records hard deletes for delta sync (see the README). */
export const DELETIONS_TABLE = 'weft_deletions';

const TABLES = `
SELECT n.nspname::text AS schema, c.relname::text AS name, obj_description(c.oid, 'pg_class') AS comment,
       c.reltuples::float8 AS estimated_rows
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname::text = ANY($1::text[]) AND c.relkind IN ('r', 'p') AND NOT c.relispartition
  AND has_table_privilege(c.oid, 'SELECT')
ORDER BY 1, 2`;

const COLUMNS = `
SELECT n.nspname::text AS schema, c.relname::text AS table, a.attname::text AS name, a.attnotnull AS not_null,
       bt.typname::text AS type, bt.typtype::text AS typtype, bt.typcategory::text AS category,
       format_type(bt.oid, CASE WHEN t.typtype = 'd' THEN t.typtypmod ELSE a.atttypmod END) AS sql_type,
       CASE WHEN bt.typtype = 'e' THEN ARRAY(SELECT e.enumlabel::text FROM pg_enum e WHERE e.enumtypid = bt.oid ORDER BY e.enumsortorder) END AS labels,
       et.typname::text AS elem_type, et.typtype::text AS elem_typtype, et.typcategory::text AS elem_category,
       format_type(et.oid, NULL) AS elem_sql_type,
       CASE WHEN et.typtype = 'e' THEN ARRAY(SELECT e.enumlabel::text FROM pg_enum e WHERE e.enumtypid = et.oid ORDER BY e.enumsortorder) END AS elem_labels,
       CASE WHEN bt.typname = 'numeric' AND a.atttypmod >= 4 THEN (a.atttypmod - 4) & 65535 END AS scale,
       col_description(c.oid, a.attnum) AS comment
FROM pg_attribute a
JOIN pg_class c ON c.oid = a.attrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_type t ON t.oid = a.atttypid
JOIN pg_type bt ON bt.oid = CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE t.oid END
LEFT JOIN pg_type et ON et.oid = bt.typelem AND bt.typcategory = 'A'
WHERE n.nspname::text = ANY($1::text[]) AND c.relkind IN ('r', 'p') AND NOT c.relispartition
  AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY n.nspname, c.relname, a.attnum`;

const CONSTRAINTS = `
SELECT n.nspname::text AS schema, c.relname::text AS table, k.contype::text AS kind,
       ARRAY(SELECT a.attname::text FROM unnest(k.conkey) WITH ORDINALITY AS u(num, ord)
             JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.num ORDER BY u.ord) AS columns,
       fn.nspname::text AS target_schema, fc.relname::text AS target_table,
       ARRAY(SELECT a.attname::text FROM unnest(k.confkey) WITH ORDINALITY AS u(num, ord)
             JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = u.num ORDER BY u.ord) AS target_columns
FROM pg_constraint k
JOIN pg_class c ON c.oid = k.conrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_class fc ON fc.oid = k.confrelid
LEFT JOIN pg_namespace fn ON fn.oid = fc.relnamespace
WHERE n.nspname::text = ANY($1::text[]) AND k.contype IN ('p', 'u', 'f')
ORDER BY k.conname`;

// The fingerprint comes from the same statement, so it describes exactly the catalog read.
const CATALOG = `
SELECT (SELECT json_agg(t) FROM (${TABLES}) t) AS tables,
       (SELECT json_agg(c) FROM (${COLUMNS}) c) AS columns,
       (SELECT json_agg(k) FROM (${CONSTRAINTS}) k) AS constraints,
       (${FINGERPRINT}) AS fingerprint`;

/** What the catalog says of a column's type (and of its element type, for arrays). */
export interface TypeRow {
  type: string;
  typtype: string;
  category: string;
  sql_type: string;
  labels: string[] | null;
  elem_type: string | null;
  elem_typtype: string | null;
  elem_category: string | null;
  elem_sql_type: string | null;
  elem_labels: string[] | null;
}

interface ColumnRow extends TypeRow {
  schema: string;
  table: string;
  name: string;
  not_null: boolean;
  scale: number | null;
  comment: string | null;
}

interface ConstraintRow {
  schema: string;
  table: string;
  kind: 'p' | 'u' | 'f';
  columns: string[];
  target_schema: string | null;
  target_table: string | null;
  target_columns: string[];
}

/** Every readable table of the given schemas (partitions are read through their parent). */
export async function introspect(db: Queryable, schemas: readonly string[]): Promise<TableInfo[]> {
  return (await readCatalog(db, schemas)).tables;
}

/** The tables, and the catalog's fingerprint at the moment they were read (catalog-fingerprint.ts). */
export async function readCatalog(
  db: Queryable,
  schemas: readonly string[],
): Promise<{ tables: TableInfo[]; fingerprint: string }> {
  // The three lists as JSON arrays of one row: json_agg keeps each subquery's order.
  const result = await db.query<{
    tables: { schema: string; name: string; comment: string | null; estimated_rows: number }[] | null;
    columns: ColumnRow[] | null;
    constraints: ConstraintRow[] | null;
    fingerprint: string;
  }>(CATALOG, [schemas]);
  const row = result.rows[0];
  const tables = { rows: row?.tables ?? [] };
  const columns = { rows: row?.columns ?? [] };
  const constraints = { rows: row?.constraints ?? [] };
  const byKey = new Map<string, TableInfo>();
  for (const t of tables.rows) {
    byKey.set(key(t.schema, t.name), {
      schema: t.schema,
      name: t.name,
      comment: t.comment,
      estimatedRows: Number(t.estimated_rows),
      columns: [],
      primaryKey: [],
      unique: [],
      foreignKeys: [],
    });
  }
  for (const c of columns.rows) {
    const table = byKey.get(key(c.schema, c.table));
    if (!table) continue;
    const type: ColumnType = {
      name: c.type,
      typtype: c.typtype,
      category: c.category,
      sql: c.sql_type,
      ...(c.labels ? { labels: c.labels } : {}),
      ...(c.scale === null || c.scale === undefined ? {} : { scale: Number(c.scale) }),
      ...(c.elem_type
        ? {
            element: {
              name: c.elem_type,
              typtype: c.elem_typtype ?? 'b',
              category: c.elem_category ?? 'U',
              sql: c.elem_sql_type ?? c.elem_type,
              ...(c.elem_labels ? { labels: c.elem_labels } : {}),
            },
          }
        : {}),
    };
    table.columns.push({ name: c.name, notNull: c.not_null, type, comment: c.comment });
  }
  for (const k of constraints.rows) {
    const table = byKey.get(key(k.schema, k.table));
    if (!table) continue;
    if (k.kind === 'p') {
      table.primaryKey = k.columns;
      table.unique.push(k.columns);
    } else if (k.kind === 'u') table.unique.push(k.columns);
    else if (k.target_schema && k.target_table) {
      table.foreignKeys.push({
        columns: k.columns,
        targetSchema: k.target_schema,
        targetTable: k.target_table,
        targetColumns: k.target_columns,
      });
    }
  }
  return { tables: [...byKey.values()], fingerprint: row?.fingerprint ?? '' };
}

/** The schemas a user may pick: every schema but the system ones, with their table counts. */
export async function listSchemas(db: Queryable): Promise<{ schema: string; tables: number }[]> {
  const result = await db.query<{ schema: string; tables: number | string }>(`
    SELECT n.nspname::text AS schema, count(c.oid) AS tables
    FROM pg_namespace n LEFT JOIN pg_class c ON c.relnamespace = n.oid AND c.relkind IN ('r', 'p') AND NOT c.relispartition
    WHERE n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
    GROUP BY 1 ORDER BY 1`);
  return result.rows.map((r) => ({ schema: r.schema, tables: Number(r.tables) }));
}

function key(schema: string, table: string): string {
  return `${schema}\u0000${table}`;
}
