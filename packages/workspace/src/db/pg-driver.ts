import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Driver, QueryResult, Queryable } from './driver.js';

// Dates, timestamps and numerics come back as the strings Postgres sends: the data API formats
// every value in SQL, so the driver must not turn them into JS objects (PGlite's default differs
// only for columns we never return unformatted).
const types = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') => {
    if (oid === 20) return (v: string) => Number(v); // bigint: counts and ints as JSON numbers
    return pg.types.getTypeParser(oid, format as 'text');
  },
};

/**
 * A pool of connections to a Postgres server. `schema` (optional) puts every table of this
 * workspace in its own Postgres schema through search_path, so several workspaces (tests) can
 * share one database.
 */
export async function openPgDriver(
  url: string,
  options: { schema?: string; max?: number } = {},
): Promise<Driver> {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    types,
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  });
  // An idle client that loses its connection must not crash the process.
  pool.on('error', () => {});
  const wrap = (c: pg.Pool | pg.PoolClient): Queryable => ({
    async query<R>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<R>> {
      const res = await c.query(sql, params as unknown[]);
      return { rows: res.rows as R[], rowCount: res.rowCount ?? res.rows.length };
    },
  });
  // COPY needs one connection for the whole stream: a transaction's own, never the pool's.
  const wrapClient = (c: pg.PoolClient): Queryable => ({
    ...wrap(c),
    async copyIn(table, columns, text) {
      const stream = c.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`));
      await pipeline(Readable.from([text]), stream);
    },
  });
  const base = wrap(pool);
  return {
    kind: 'postgres',
    raw: pool,
    query: base.query,
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn(wrapClient(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    exec: async (sql) => {
      await pool.query(sql);
    },
    close: () => pool.end(),
  };
}
