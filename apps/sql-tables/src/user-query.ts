// The user's own query (the `query` filter): checked without ever running a write, described
// to get its columns, and read like a table keyed by its `id` column.
import { InvalidFilterError } from '@weft/core';
import type { Queryable } from './database.js';
import { isStatementFault } from './errors.js';
import type { ColumnInfo, ColumnType, TypeRow } from './introspect.js';
import { type TableModel, tableModels } from './table-model.js';

/** The query as a subquery. Newlines keep a trailing `-- comment` from hiding the parenthesis. */
export function subquery(sql: string): string {
  return `(\n${sql}\n) AS weft_query`;
}

/** A query is a single SELECT (or VALUES, or WITH ... SELECT); `;` at its end is dropped. */
export function normaliseQuery(sql: string): string {
  return sql.trim().replace(/;\s*$/, '');
}

/**
 * Checks the query without running it: EXPLAIN plans it inside a READ ONLY transaction that is
 * rolled back. As a subquery it can only read (Postgres refuses INSERT/UPDATE/DELETE, and WITH
 * clauses that write, below the top level), and the transaction refuses writes by functions.
 * Then its columns: it needs an `id` column, and column names must be unique.
 */
export async function checkQuery(q: Queryable, sql: string): Promise<ColumnInfo[]> {
  const text = normaliseQuery(sql);
  if (text === '') throw new InvalidFilterError('Filter "query": the query is empty');
  try {
    await q.query(`EXPLAIN SELECT * FROM ${subquery(text)}`);
  } catch (error) {
    // Planning over the query's time limit, or a database in trouble, is not the text's fault:
    // the caller answers those (the time limit by name, the rest as the database's).
    if (!isStatementFault(error)) throw error;
    throw new InvalidFilterError(`Filter "query": ${(error as Error).message}`);
  }
  const columns = await describeQuery(q, text);
  const names = columns.map((c) => c.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) {
    throw new InvalidFilterError(
      `Filter "query": the column "${twice}" appears twice; give each column its own name`,
    );
  }
  if (!names.includes('id')) {
    throw new InvalidFilterError(
      'Filter "query": the query needs a column named "id" that is unique per row (e.g. SELECT b.id, ...)',
    );
  }
  return columns;
}

/** The query's columns and their types, from a LIMIT 0 run (no row is produced). */
export async function describeQuery(q: Queryable, sql: string): Promise<ColumnInfo[]> {
  const { fields } = await q.query(`SELECT * FROM ${subquery(normaliseQuery(sql))} LIMIT 0`);
  const types = await typesOf(
    q,
    fields.map((f) => f.dataTypeID),
  );
  return fields.map((f) => ({
    name: f.name,
    notNull: false,
    comment: null,
    type: types.get(f.dataTypeID) ?? { name: 'text', typtype: 'b', category: 'S', sql: 'text' },
  }));
}

/** The model of the query's rows: like a table whose primary key is `id`. */
export function queryModel(typeId: string, columns: ColumnInfo[]): TableModel {
  const [model] = tableModels(
    [
      {
        schema: '',
        name: typeId,
        comment: null,
        estimatedRows: 0,
        columns,
        primaryKey: ['id'],
        unique: [['id']],
        foreignKeys: [],
      },
    ],
    [''],
  );
  // Rows of a query have no reliable change time: always a full sync.
  delete model!.delta;
  return model!;
}

async function typesOf(q: Queryable, oids: number[]): Promise<Map<number, ColumnType>> {
  const { rows } = await q.query<TypeRow & { oid: number }>(
    `SELECT t.oid::int8 AS oid, bt.typname::text AS type, bt.typtype::text AS typtype, bt.typcategory::text AS category,
            format_type(bt.oid, NULL) AS sql_type,
            CASE WHEN bt.typtype = 'e' THEN ARRAY(SELECT e.enumlabel::text FROM pg_enum e WHERE e.enumtypid = bt.oid ORDER BY e.enumsortorder) END AS labels,
            et.typname::text AS elem_type, et.typtype::text AS elem_typtype, et.typcategory::text AS elem_category,
            format_type(et.oid, NULL) AS elem_sql_type,
            CASE WHEN et.typtype = 'e' THEN ARRAY(SELECT e.enumlabel::text FROM pg_enum e WHERE e.enumtypid = et.oid ORDER BY e.enumsortorder) END AS elem_labels
     FROM pg_type t
     JOIN pg_type bt ON bt.oid = CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE t.oid END
     LEFT JOIN pg_type et ON et.oid = bt.typelem AND bt.typcategory = 'A'
     WHERE t.oid = ANY($1::oid[])`,
    [[...new Set(oids)]],
  );
  return new Map(
    rows.map((r) => [
      Number(r.oid),
      {
        name: r.type,
        typtype: r.typtype,
        category: r.category,
        sql: r.sql_type,
        ...(r.labels ? { labels: r.labels } : {}),
        ...(r.elem_type
          ? {
              element: {
                name: r.elem_type,
                typtype: r.elem_typtype ?? 'b',
                category: r.elem_category ?? 'U',
                sql: r.elem_sql_type ?? r.elem_type,
                ...(r.elem_labels ? { labels: r.elem_labels } : {}),
              },
            }
          : {}),
      },
    ]),
  );
}
