import { PGlite } from '@electric-sql/pglite';
import type { Driver, QueryResult, Queryable } from './driver.js';

/**
 * PGlite runs Postgres in this process (WASM). One connection: PGlite serialises queries and holds
 * other callers back while a transaction runs, so transactions never interleave.
 * `dataDir` is a folder, or undefined for an in-memory database.
 */
export async function openPgliteDriver(dataDir?: string): Promise<Driver> {
  const db = dataDir ? new PGlite(dataDir) : new PGlite();
  await db.waitReady;
  const wrap = (q: {
    query: (sql: string, params?: unknown[]) => Promise<{ rows: unknown[]; affectedRows?: number }>;
  }): Queryable => ({
    async query<R>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<R>> {
      const res = await q.query(sql, params as unknown[]);
      return { rows: res.rows as R[], rowCount: res.affectedRows ?? res.rows.length };
    },
  });
  const base = wrap(db);
  return {
    kind: 'pglite',
    // The PGlite instance itself, for what the interface does not cover (COPY FROM '/dev/blob' in the bench).
    raw: db,
    query: base.query,
    transaction: (fn) => db.transaction((tx) => fn(wrap(tx))),
    exec: async (sql) => {
      await db.exec(sql);
    },
    close: () => db.close(),
  };
}
