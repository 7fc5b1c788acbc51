import pg from 'pg';
import type { CopyData, CopyOptions, Driver, QueryResult, Queryable } from './driver.js';
import { copyIn } from './pg-copy-in.js';
import { currentRequest } from './request-scope.js';
import { checkRequest, release, stopped, whileRunning } from './statement-stop.js';

// Dates, timestamps and numerics come back as the strings Postgres sends: the data API formats
// every value in SQL, so the driver must not turn them into JS objects (PGlite's default differs
// only for columns we never return unformatted).
const types = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') => {
    if (oid === 20) return (v: string) => Number(v); // bigint: counts and ints as JSON numbers
    return pg.types.getTypeParser(oid, format as 'text');
  },
};

export interface PgDriverOptions {
  schema?: string;
  max?: number;
  /**
   * The statement timeout of the data API's requests (see request-scope.ts), in milliseconds; 0
   * or absent: none. Work outside a request (start-up, workers, the job queue) has none.
   */
  statementTimeoutMs?: number;
}

/**
 * A pool of connections to a Postgres server. `schema` (optional) puts every table of this
 * workspace in its own Postgres schema through search_path, so several workspaces (tests) can
 * share one database.
 */
export async function openPgDriver(url: string, options: PgDriverOptions = {}): Promise<Driver> {
  const poolOf = (settings: string[]) => {
    const p = new pg.Pool({
      connectionString: url,
      max: options.max ?? 10,
      types,
      ...(settings.length > 0 ? { options: settings.join(' ') } : {}),
    });
    // An idle client that loses its connection must not crash the process.
    p.on('error', () => {});
    return p;
  };
  const path = options.schema ? [`-c search_path=${options.schema}`] : [];
  const pool = poolOf(path);
  // Requests' statements run on connections of their own whose statement_timeout is set once,
  // when the connection opens: no SET per request, and background work keeps no timeout.
  const timeout = options.statementTimeoutMs ?? 0;
  const requestPool = timeout > 0 ? poolOf([...path, `-c statement_timeout=${timeout}`]) : pool;
  const poolNow = () => (currentRequest() ? requestPool : pool);
  const cancel = (pid: number) => {
    pool.query('SELECT pg_cancel_backend($1)', [pid]).catch(() => {});
  };
  return {
    kind: 'postgres',
    raw: pool,
    async query<R>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<R>> {
      const scope = currentRequest();
      if (!scope) {
        const res = await pool.query(sql, params as unknown[]);
        return { rows: res.rows as R[], rowCount: res.rowCount ?? res.rows.length };
      }
      const client = await requestPool.connect();
      try {
        const res = await whileRunning(scope, client, cancel, () => client.query(sql, params as unknown[]));
        return { rows: res.rows as R[], rowCount: res.rowCount ?? res.rows.length };
      } catch (error) {
        throw stopped(error, scope, timeout);
      } finally {
        release(client);
      }
    },
    async transaction(fn) {
      const scope = currentRequest();
      const client = await poolNow().connect();
      const tx = new PgTransaction(client);
      try {
        const result = await whileRunning(scope, client, cancel, async () => {
          const value = await fn(tx);
          await tx.commit();
          return value;
        });
        return result;
      } catch (error) {
        await tx.rollback().catch(() => {});
        throw stopped(error, scope, timeout);
      } finally {
        release(client);
      }
    },
    exec: async (sql) => {
      await pool.query(sql);
    },
    close: async () => {
      await pool.end();
      if (requestPool !== pool) await requestPool.end();
    },
  };
}

/**
 * One transaction on one pooled connection. BEGIN is not a round trip of its own: it is sent with
 * the first statement when that statement has no parameters (BEGIN; SELECT … as one simple
 * query, as the catalog check that starts every command is), else just before it. A transaction
 * that never ran a statement sends neither BEGIN nor COMMIT.
 */
class PgTransaction implements Queryable {
  private begun = false;
  /** committed by a COPY sent as the last statement (see CopyOptions.commit) */
  private committed = false;

  constructor(private readonly client: pg.PoolClient) {}

  async query<R>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<R>> {
    if (this.committed) throw new Error('A statement was sent after its transaction committed');
    checkRequest();
    if (!this.begun && params.length === 0) {
      this.begun = true;
      const res = (await this.client.query(`BEGIN; ${sql}`)) as unknown as pg.QueryResult | pg.QueryResult[];
      const last = Array.isArray(res) ? res[res.length - 1]! : res;
      return { rows: last.rows as R[], rowCount: last.rowCount ?? last.rows.length };
    }
    await this.begin();
    const res = await this.client.query(sql, params as unknown[]);
    return { rows: res.rows as R[], rowCount: res.rowCount ?? res.rows.length };
  }

  // COPY runs on the transaction's own connection, never the pool's. Not an async function: once
  // the transaction has begun, the data is written before this returns (see Queryable.copyIn).
  copyIn(
    table: string,
    columns: readonly string[],
    data: CopyData,
    options: CopyOptions = {},
  ): Promise<void> {
    if (this.committed)
      return Promise.reject(new Error('A statement was sent after its transaction committed'));
    const send = async () => {
      if (options.commit) this.committed = true;
      try {
        await copyIn(this.client, table, columns, data, options.commit === true, options.binary === true);
      } catch (error) {
        // A failed COPY committed nothing: the transaction rolls back as usual.
        this.committed = false;
        throw error;
      }
    };
    return this.begun ? send() : this.begin().then(send);
  }

  async commit(): Promise<void> {
    if (this.begun && !this.committed) await this.client.query('COMMIT');
  }

  async rollback(): Promise<void> {
    if (this.begun && !this.committed) await this.client.query('ROLLBACK');
  }

  private async begin(): Promise<void> {
    if (this.begun) return;
    this.begun = true;
    await this.client.query('BEGIN');
  }
}
