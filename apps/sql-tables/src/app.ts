// SQL tables: an integration app whose types are the tables of the user's Postgres database,
// read from the database's catalog when the service asks (core's account-dependent config):
// columns become fields, foreign keys relations, enums selects; rows are read a page at a time
// in key order; tables with an `updated_at` column sync by delta, with removals from a
// soft-delete column or the `weft_deletions` table; the user's own query becomes one more type.
import {
  type AccountTypeDefinition,
  BadRequestError,
  InvalidAccountError,
  InvalidFilterError,
  auth,
  defineApp,
  field,
  input,
} from '@weft/core';
import type { Database, Queryable } from './database.js';
import { type DatabaseSource, type SqlAccount, accountSchemas } from './databases.js';
import { databaseError } from './errors.js';
import { introspect, listSchemas } from './introspect.js';
import { ModelMemo } from './model-memo.js';
import { readCursor, readRows } from './read-rows.js';
import { ident, qualified } from './sql.js';
import { type TableModel, schemaFields, tableModels, titleCase } from './table-model.js';
import { enterSandbox, prepareReader, USER_QUERY_TIMEOUT_MS } from './query-sandbox.js';
import { checkQuery, queryModel, subquery, normaliseQuery } from './user-query.js';

/** Rows per page (one query per page): rows are small and a page costs a round trip, so more than core's default. */
export const PAGE_SIZE = 5000;

export interface SqlTablesOptions {
  /** Where accounts' databases come from (see `databaseSource`). */
  source: DatabaseSource;
  /** Rows per page; default {@link PAGE_SIZE}. */
  pageSize?: number;
  /**
   * Seconds core may reuse a database's tables per account without asking the database; default
   * 0: every request checks the catalog's fingerprint (one small query; the models are rebuilt
   * only when it changed), so a new column shows at once.
   */
  cacheSeconds?: number;
  /**
   * Whether a full sync of a table has the database write each page's items as JSON (one query,
   * spliced by core untouched) when the table allows it. Default: on PGlite (the embedded
   * database, in a worker thread of the app: 0.96-1.03 of a plain SELECT against 0.62-0.76 reading rows),
   * not on a Postgres server (there it moves CPU from the app to the database and measured slower
   * than reading rows; see the README's Benchmark). Both ways send the same values.
   */
  jsonPages?: boolean;
  /** Time limit of one statement of the user's query, in ms; default {@link USER_QUERY_TIMEOUT_MS}. */
  queryTimeoutMs?: number;
}

/** Postgres's answer to a statement over `statement_timeout` (the worker's limit answers the same). */
function isStatementTimeout(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  return e?.code === '57014' && /statement timeout/.test(e.message ?? '');
}

function queryTooSlow(timeoutMs: number): InvalidFilterError {
  const limit = timeoutMs >= 1000 ? `${+(timeoutMs / 1000).toFixed(1)} s` : `${timeoutMs} ms`;
  return new InvalidFilterError(
    `Filter "query": the query ran longer than its time limit of ${limit} and was stopped; narrow it (a WHERE clause, fewer joins)`,
  );
}

/** Filters as handlers receive them. */
interface SqlFilter {
  schema?: string | undefined;
  tables?: string[] | undefined;
  query?: string | undefined;
}

export function createSqlTablesApp(options: SqlTablesOptions) {
  const { source } = options;
  const pageSize = options.pageSize ?? PAGE_SIZE;

  async function open(account: SqlAccount): Promise<Database> {
    try {
      return await source.open(account);
    } catch (error) {
      throw databaseError(error, `Cannot open ${source.describe(account)}`);
    }
  }

  const memo = new ModelMemo();

  /** The account's tables as the catalog describes them now (built again only when it changed). */
  async function models(db: Queryable, account: SqlAccount): Promise<readonly TableModel[]> {
    const schemas = accountSchemas(account);
    try {
      return await memo.models(db, schemas);
    } catch (error) {
      throw databaseError(error, `Cannot read the tables of ${source.describe(account)}`);
    }
  }

  /** The same, read in full: for the tables datalist, whose row estimates the fingerprint leaves out. */
  async function freshModels(db: Queryable, account: SqlAccount): Promise<TableModel[]> {
    const schemas = accountSchemas(account);
    try {
      return tableModels(await introspect(db, schemas), schemas);
    } catch (error) {
      throw databaseError(error, `Cannot read the tables of ${source.describe(account)}`);
    }
  }

  /**
   * A read-only transaction whose search path is the account's schemas, so the user's query
   * names tables as the user sees them (`books`, not `"sales"."books"`), with the user's query's
   * time limit and, on a superuser session, the reader role (query-sandbox.ts).
   */
  async function readOnly<T>(
    db: Database,
    account: SqlAccount,
    fn: (q: Queryable) => Promise<T>,
  ): Promise<T> {
    const asReader = await prepareReader(db, accountSchemas(account));
    const timeoutMs = options.queryTimeoutMs ?? USER_QUERY_TIMEOUT_MS;
    try {
      return await db.readOnly(
        async (q) => {
          await enterSandbox(q, asReader, timeoutMs);
          await q.query(`SELECT set_config('search_path', $1, true)`, [
            accountSchemas(account).map(ident).join(', '),
          ]);
          return fn(q);
        },
        { timeoutMs },
      );
    } catch (error) {
      // Over its time limit (Postgres's timer on a server, the worker's on PGlite): the query's
      // own fault, and it would be again, so a 400 the user reads rather than a retry later.
      if (isStatementTimeout(error)) throw queryTooSlow(timeoutMs);
      throw error;
    }
  }

  /** Whether the filter lets this table's rows through. */
  function included(model: TableModel, filter: SqlFilter): boolean {
    if (filter.schema && model.table.schema !== filter.schema) return false;
    if (filter.tables && filter.tables.length > 0 && !filter.tables.includes(model.typeId)) return false;
    return true;
  }

  /** The id of the query's type: `query`, unless a table has that name. */
  function queryTypeId(tables: readonly TableModel[]): string {
    let id = 'query';
    while (tables.some((t) => t.typeId === id)) id = `weft_${id}`;
    return id;
  }

  function cursorOf(value: unknown): void {
    if (readCursor(value as never) === null)
      throw new BadRequestError('The page cursor is not one this app produced');
  }

  return defineApp({
    id: 'sql-tables',
    name: 'SQL tables',
    version: '1.0.0',
    description:
      'Syncs the tables of a Postgres database: columns become fields, foreign keys relations, enums selects; your own query too.',
    website: 'https://github.com/weft/weft/tree/main/apps/sql-tables',
    logo: {
      svg: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><ellipse cx="12" cy="5" rx="8" ry="3" fill="#336791"/><path fill="#336791" d="M4 5v14c0 1.7 3.6 3 8 3s8-1.3 8-3V5c0 1.7-3.6 3-8 3S4 6.7 4 5z" opacity=".8"/><path fill="#fff" d="M6 11h12v1H6zm0 4h12v1H6z"/></svg>',
    },
    pageSize,
    authentication: [
      auth.fields({
        id: 'database',
        name: 'Postgres database',
        description: 'A connection string; leave it empty for the database this app is set up with',
        fields: {
          url: input.text({
            name: 'Connection string',
            description: 'postgres://user@host:5432/database?sslmode=require (empty: the app’s own database)',
            optional: true,
            secret: true,
          }),
          password: input.password({
            name: 'Password',
            description: 'Unless the connection string holds it',
            optional: true,
          }),
          schemas: input.text({
            name: 'Schemas',
            description: 'Comma-separated; default public',
            optional: true,
          }),
        },
        async validate(account) {
          const db = await open(account);
          let row: { db: string; user: string } | undefined;
          try {
            row = (
              await db.query<{ db: string; user: string }>(
                'SELECT current_database()::text AS db, current_user::text AS "user"',
              )
            ).rows[0];
          } catch (error) {
            throw databaseError(error, `Cannot connect to ${source.describe(account)}`);
          }
          const wanted = accountSchemas(account);
          const present = new Set((await listSchemas(db)).map((s) => s.schema));
          const missing = wanted.filter((s) => !present.has(s));
          if (missing.length > 0)
            throw new InvalidAccountError(
              `No schema named ${missing.map((s) => `"${s}"`).join(', ')} in the database`,
            );
          return { name: `${row?.db ?? 'database'} (${wanted.join(', ')})` };
        },
      }),
    ],
    sync: {
      types: {},
      accountCacheSeconds: options.cacheSeconds ?? 0,
      filters: {
        schema: input.list({
          name: 'Schema',
          description: 'Only the tables of this schema',
          datalist: true,
          optional: true,
        }),
        tables: input.multidropdown({
          name: 'Tables',
          description: 'Only these tables (empty: every table)',
          datalist: true,
          dependsOn: ['schema'],
          optional: true,
        }),
        query: input.highlightText({
          name: 'Query',
          description: 'Your own SELECT, synced as the "Query results" type; it needs a unique id column',
          editorMode: 'sql',
          optional: true,
        }),
      },
      datalists: {
        schema: async ({ account }) => {
          const db = await open(account);
          const wanted = new Set(accountSchemas(account));
          const schemas = (await listSchemas(db)).filter((s) => wanted.has(s.schema));
          return schemas.map((s) => ({ title: `${s.schema} (${s.tables} tables)`, value: s.schema }));
        },
        tables: async ({ account, dependsOn }) => {
          const db = await open(account);
          const schema =
            typeof dependsOn.schema === 'string' && dependsOn.schema !== '' ? dependsOn.schema : undefined;
          return (await freshModels(db, account))
            .filter((m) => !schema || m.table.schema === schema)
            .map((m) => ({
              title: `${m.table.schema}.${m.table.name}${m.table.estimatedRows > 0 ? ` (about ${Math.round(m.table.estimatedRows)} rows)` : ''}`,
              value: m.typeId,
            }));
        },
      },
      async validateFilter({ account, filter }) {
        if (filter.schema && !accountSchemas(account).includes(filter.schema)) {
          throw new InvalidFilterError(
            `Filter "schema": "${filter.schema}" is not one of the account's schemas`,
          );
        }
        const db = await open(account);
        if (filter.tables && filter.tables.length > 0) {
          const known = new Set((await models(db, account)).map((m) => m.typeId));
          const unknown = filter.tables.find((t) => !known.has(t));
          if (unknown) throw new InvalidFilterError(`Filter "tables": there is no table "${unknown}"`);
        }
        if (filter.query?.trim())
          await readOnly(db, account, (q) => checkQuery(q, filter.query!)).catch((error: unknown) => {
            throw databaseError(error, 'Cannot check the query');
          });
      },
      async accountTypes({ account, filter }) {
        const db = await open(account);
        const tables = await models(db, account);
        const multiSchema = accountSchemas(account).length > 1;
        const types: Record<string, AccountTypeDefinition<typeof account, typeof filter>> = {};
        for (const model of tables) {
          const from = `${qualified(model.table.schema, model.table.name)} AS weft_row`;
          types[model.typeId] = {
            name: multiSchema
              ? `${titleCase(model.table.schema)}: ${titleCase(model.table.name)}`
              : titleCase(model.table.name),
            description:
              model.table.comment ??
              `Rows of ${model.table.schema}.${model.table.name}${model.delta ? ` (delta sync by ${model.delta.updatedAt})` : ''}`,
            fields: schemaFields(model),
            ...(model.delta ? { delta: true } : {}),
            async *data(ctx) {
              cursorOf(ctx.cursor);
              if (!included(model, ctx.filter as SqlFilter)) return;
              const database = await open(ctx.account);
              try {
                yield* readRows(model, {
                  from,
                  alias: 'weft_row',
                  batch: pageSize,
                  since: ctx.mode === 'delta' ? ctx.since : null,
                  cursor: ctx.cursor,
                  run: (fn) => fn(database),
                  jsonPages: options.jsonPages ?? database.driver === 'pglite',
                });
              } catch (error) {
                throw databaseError(error, `Cannot read ${model.table.schema}.${model.table.name}`);
              }
            },
          };
        }
        // The user's query: its columns when the filter holds one (schema and data requests carry
        // the filter), else only id and name (the config request carries no filter).
        const queryId = queryTypeId(tables);
        const sql = typeof filter.query === 'string' ? normaliseQuery(filter.query) : '';
        // A query that does not check out leaves the tables usable; its own type answers the error.
        let problem: Error | undefined;
        const columns = sql
          ? await readOnly(db, account, (q) => checkQuery(q, sql)).catch((error: Error) => {
              if (!(error instanceof InvalidFilterError))
                throw databaseError(error, 'Cannot check the query');
              problem = error;
              return null;
            })
          : null;
        const model = columns ? queryModel(queryId, columns) : null;
        types[queryId] = {
          name: 'Query results',
          description: 'The rows of your own query (the Query filter); empty without one',
          fields: model ? schemaFields(model) : { id: field.id(), name: field.title() },
          async *data(ctx) {
            cursorOf(ctx.cursor);
            if (problem) throw problem;
            if (!model) return;
            const database = await open(ctx.account);
            try {
              yield* readRows(model, {
                from: subquery(sql),
                alias: 'weft_query',
                batch: pageSize,
                since: null,
                cursor: ctx.cursor,
                run: (fn) => readOnly(database, ctx.account, fn),
                jsonPages: false,
              });
            } catch (error) {
              // The query tried to write (nextval(), a function that inserts): the filter's fault.
              // Or reached for what the reader role may not touch (a sequence, a server file).
              const code = (error as { code?: string }).code;
              if (code === '25006' || code === '42501') {
                throw new InvalidFilterError(`Filter "query": ${(error as Error).message}`);
              }
              throw databaseError(error, 'Cannot read the query results');
            }
          },
        };
        return types;
      },
    },
  });
}
