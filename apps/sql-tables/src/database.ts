// One small interface over the two drivers the app speaks: PGlite (Postgres compiled to
// WebAssembly; the app's embedded database runs it in a worker thread, worker-database.ts) and node-postgres (a real server over the network). Everything
// else in the app talks to `Database` only.
import type { PGlite, Transaction } from '@electric-sql/pglite';
import pg from 'pg';

export interface QueryResult<R> {
  rows: R[];
  fields: { name: string; dataTypeID: number }[];
}

export interface Queryable {
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<R>>;
  /** Rows as arrays in select-list order: less work per row than objects, for bulk reads. */
  queryArrays(sql: string, params?: unknown[]): Promise<unknown[][]>;
}

export interface ReadOnlyOptions {
  /**
   * Time limit of each statement, in ms, where the session's own `statement_timeout` cannot
   * enforce it (the embedded PGlite, see worker-database.ts); a Postgres server enforces the
   * limit the transaction sets and ignores this.
   */
  timeoutMs?: number;
}

export interface Database extends Queryable {
  /** Which driver answers: `pglite` or `postgres`. */
  readonly driver: 'pglite' | 'postgres';
  /**
   * Runs `fn` in a READ ONLY transaction that is always rolled back: used for the user's own
   * query, which must never write, whatever it says.
   */
  readOnly<T>(fn: (q: Queryable) => Promise<T>, options?: ReadOnlyOptions): Promise<T>;
  close(): Promise<void>;
}

/** Postgres types read as text by both drivers, so values look the same whichever answers. */
const TEXT_TYPES = [1082, 1114, 1184, 1083, 1266, 1186] as const; // date, timestamp(tz), time(tz), interval

/**
 * Every session reads times in UTC and writes them in ISO form (`2026-01-02 03:04:05.6+00`), so
 * the app turns a timestamp column's text into ISO 8601 in JavaScript: far cheaper per row than
 * asking Postgres for `to_json(...)` of every value.
 */
const SESSION_SETTINGS = `SET TimeZone TO 'UTC'; SET DateStyle TO 'ISO, YMD'`;
// (node-postgres connections get the same two settings as start-up options, in postgresDatabase.)

const asText = (value: string) => value;
const PGLITE_TEXT_PARSERS = Object.fromEntries(TEXT_TYPES.map((oid) => [oid, asText]));

export async function pgliteDatabase(db: PGlite): Promise<Database> {
  // PGlite is one session: set once, the settings hold for every later query.
  await db.exec(SESSION_SETTINGS);
  const wrap = (q: PGlite | Transaction): Queryable => ({
    async query<R>(sql: string, params: unknown[] = []) {
      const result = await q.query<R>(sql, params, { parsers: PGLITE_TEXT_PARSERS });
      return {
        rows: result.rows,
        fields: result.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })),
      };
    },
    async queryArrays(sql: string, params: unknown[] = []) {
      return (await q.query<unknown[]>(sql, params, { rowMode: 'array', parsers: PGLITE_TEXT_PARSERS })).rows;
    },
  });
  const base = wrap(db);
  return {
    driver: 'pglite',
    query: base.query,
    queryArrays: base.queryArrays,
    readOnly: (fn) =>
      db.transaction(async (tx) => {
        await tx.query('SET TRANSACTION READ ONLY');
        const result = await fn(wrap(tx));
        await tx.rollback();
        return result;
      }),
    close: () => db.close(),
  };
}

export interface PostgresOptions {
  /** Connections at most; default 4 (the service asks for a sync's types concurrently). */
  max?: number;
  /** Time limit of one statement in ms; default 20,000 (below core's 25 s handler limit). */
  statementTimeoutMs?: number;
}

export function postgresDatabase(
  connectionString: string,
  password?: string,
  options: PostgresOptions = {},
): Database {
  // pg lets the connection string's parts override separate options, so a password given apart
  // goes into the URL (the URL setter percent-encodes it).
  let url = connectionString;
  if (password) {
    const parsed = new URL(connectionString);
    parsed.password = password;
    url = parsed.toString();
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 4,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 10_000,
    statement_timeout: options.statementTimeoutMs ?? 20_000,
    application_name: 'weft-sql-tables',
    // The session settings below, as start-up options of every connection (no extra round trip).
    options: `-c TimeZone=UTC -c DateStyle=ISO,YMD`,
    // Dates and times as the server's text, like PGlite below: no local-time-zone surprises.
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        (TEXT_TYPES as readonly number[]).includes(oid)
          ? (value: string) => value
          : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  });
  // An idle connection that the server drops must not crash the process.
  pool.on('error', () => {});

  const wrap = (q: pg.Pool | pg.PoolClient): Queryable => ({
    async query<R>(sql: string, params: unknown[] = []) {
      const result = await q.query(sql, params);
      return {
        rows: result.rows as R[],
        fields: result.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })),
      };
    },
    async queryArrays(sql: string, params: unknown[] = []) {
      return (await q.query({ text: sql, values: params, rowMode: 'array' })).rows as unknown[][];
    },
  });
  const base = wrap(pool);
  return {
    driver: 'postgres',
    query: base.query,
    queryArrays: base.queryArrays,
    async readOnly(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN TRANSACTION READ ONLY');
        return await fn(wrap(client));
      } finally {
        await client.query('ROLLBACK').catch(() => {});
        client.release();
      }
    },
    close: () => pool.end(),
  };
}
