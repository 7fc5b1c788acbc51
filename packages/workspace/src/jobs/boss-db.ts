import type PgBoss from 'pg-boss';
import type { Driver, Queryable } from '../db/driver.js';

// pg-boss talks to the database through one method, `executeSql(text, values)`. This adapter runs
// it on the workspace's own driver, so the queue lives in the same database (PGlite or Postgres) as
// everything else, and a job can be sent inside one of our transactions.

interface PgliteLike {
  exec(sql: string): Promise<Array<{ rows: unknown[] }>>;
  query(sql: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
}

interface PoolLike {
  query(sql: string, params?: unknown[]): Promise<{ rows: unknown[] } | Array<{ rows: unknown[] }>>;
}

export interface BossDb extends PgBoss.Db {
  /** From now on every statement is dropped unrun: the process is going away (see JobQueue.stop). */
  detach(): void;
}

/** The adapter over the whole driver: what pg-boss runs outside our transactions. */
export function bossDb(driver: Driver): BossDb {
  let detached = false;
  const run: (text: string, values?: unknown[]) => Promise<{ rows: unknown[] }> =
    driver.kind === 'pglite'
      ? async (text, values) => {
          const db = driver.raw as PgliteLike;
          // pg-boss' migrations and maintenance are several statements (BEGIN ... COMMIT) without
          // parameters: PGlite runs those through exec (the simple query protocol) only.
          if (!values || values.length === 0) return { rows: (await db.exec(text)).at(-1)?.rows ?? [] };
          return { rows: (await db.query(text, values)).rows };
        }
      : async (text, values) => {
          // On Postgres the driver's pg pool, as pg-boss' own: multi-statement text without
          // parameters runs as one simple query and answers one result per statement.
          const res = await (driver.raw as PoolLike).query(
            text,
            values && values.length > 0 ? values : undefined,
          );
          return { rows: (Array.isArray(res) ? res.at(-1)?.rows : res.rows) ?? [] };
        };
  return {
    async executeSql(text, values) {
      // pg-boss completes jobs without awaiting; after a stop these must not reach a closed driver.
      // No `rows` at all is what its completion and fetch code read as "nothing done".
      if (detached) return {} as { rows: unknown[] };
      return run(text, values);
    },
    detach() {
      detached = true;
    },
  };
}

/** The adapter over one of our transactions: `send(..., { db: inTransaction(tx) })` commits with it. */
export function inTransaction(tx: Queryable): PgBoss.Db {
  return {
    async executeSql(text, values) {
      return { rows: (await tx.query(text, values ?? [])).rows };
    },
  };
}
