// Where the user's own query runs: a read-only transaction (database.ts), under a statement time
// limit (`statement_timeout` on a server; on the embedded PGlite, where that timer cannot fire,
// worker-database.ts ends the worker), and never as a superuser. A superuser session (the embedded database always is one, and
// an admin may well connect to a server as one) switches to a role of its own for the query,
// NOLOGIN and NOSUPERUSER, that may only read the account's schemas: superuser-only functions
// (pg_ls_dir, pg_read_file, COPY ... TO PROGRAM, dblink ...) are refused to it. A session that is
// not a superuser already has only the rights the administrator gave it, and keeps them.
import type { Database, Queryable } from './database.js';
import { ident } from './sql.js';

export const READER_ROLE = 'weft_query_reader';
/** The time limit of one statement of the user's query, in ms (as the server pool's own default). */
export const USER_QUERY_TIMEOUT_MS = 20_000;

/** Per database, the schema lists a reader role was granted for (granting takes catalog locks: once each). */
const prepared = new WeakMap<Database, Map<string, Promise<boolean>>>();

/**
 * Makes sure the reader role may read `schemas`; answers whether the query runs as it (false: the
 * session is no superuser and runs the query as itself).
 */
export function prepareReader(db: Database, schemas: readonly string[]): Promise<boolean> {
  let byKey = prepared.get(db);
  if (!byKey) {
    byKey = new Map();
    prepared.set(db, byKey);
  }
  const key = schemas.join('\0');
  let done = byKey.get(key);
  if (!done) {
    done = grantReader(db, schemas);
    byKey.set(key, done);
    done.catch(() => byKey.delete(key));
  }
  return done;
}

async function grantReader(db: Database, schemas: readonly string[]): Promise<boolean> {
  const { rows } = await db.query<{ superuser: boolean }>(
    'SELECT rolsuper AS superuser FROM pg_roles WHERE rolname = current_user',
  );
  if (!rows[0]?.superuser) return false;
  // Two processes may create the role at once: the loser's duplicate is no error.
  await db.query(`DO $$ BEGIN
    CREATE ROLE ${READER_ROLE} NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT NOREPLICATION NOBYPASSRLS;
  EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$`);
  for (const schema of schemas) {
    const exists = await db.query(`SELECT 1 FROM pg_namespace WHERE nspname = $1`, [schema]);
    if (exists.rows.length === 0) continue;
    await db.query(`GRANT USAGE ON SCHEMA ${ident(schema)} TO ${READER_ROLE}`);
    await db.query(`GRANT SELECT ON ALL TABLES IN SCHEMA ${ident(schema)} TO ${READER_ROLE}`);
  }
  return true;
}

/** The first statements of the user's query's transaction: its time limit and, when prepared, its role. */
export async function enterSandbox(q: Queryable, asReader: boolean, timeoutMs: number): Promise<void> {
  await q.query(`SELECT set_config('statement_timeout', $1, true)`, [
    `${Math.max(1, Math.round(timeoutMs))}ms`,
  ]);
  if (asReader) await q.query(`SET LOCAL ROLE ${READER_ROLE}`);
}
