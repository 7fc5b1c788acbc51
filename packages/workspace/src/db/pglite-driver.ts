import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { Driver, QueryResult, Queryable } from './driver.js';
import { hasCluster, initDataDir, type NewCluster } from './pglite-template.js';
import { checkRequest } from './statement-stop.js';
import { timeSlice } from './time-slice.js';

/** Told what a start is doing when it may take a while (a template being made). */
type Notice = (message: string) => void;

/**
 * Server settings for the embedded engine. Postgres' defaults (128 MB of shared buffers, WAL
 * buffers sized from them) are meant for a server owning its machine; inside this process they
 * only add to the resident size. Measured on the workspace bench: see docs/workspace.md.
 */
export const PGLITE_SETTINGS = [
  'shared_buffers=16MB',
  'wal_buffers=1MB',
  'work_mem=4MB',
  'maintenance_work_mem=16MB',
  'temp_buffers=2MB',
];

async function openPglite(
  dataDir: string | undefined,
  cluster: NewCluster,
  notice?: Notice,
): Promise<PGlite> {
  // A new folder is a copy of the cached template cluster (tables made), so this process only
  // opens an existing cluster; without one PGlite runs initdb here (slow, and memory it keeps).
  if (dataDir !== undefined && !hasCluster(dataDir))
    await initDataDir(dataDir, cluster, prepareFolder, notice);
  return startPglite(dataDir);
}

/**
 * A started PGlite. While it starts, the process may hold nothing that keeps Node's event loop
 * running (a workspace opens its database before it listens), and WebAssembly's compilation
 * finishes with a task V8 posts from a background thread. With the loop empty, Node leaves it and
 * waits in its platform's DrainTasks until every queued background task is done, the optimising
 * recompiles of PGlite's hot functions included, before the start may go on: 100-150 ms idle on
 * each start, measured. A timer held over the start keeps the loop turning instead, so the start
 * resumes as soon as its own task is posted.
 */
async function startPglite(dataDir: string | undefined): Promise<PGlite> {
  const keepLoop = setInterval(() => {}, 60_000);
  try {
    const db = new PGlite({ postgresqlconf: PGLITE_SETTINGS, ...(dataDir ? { dataDir } : {}) });
    await db.waitReady;
    return db;
  } finally {
    clearInterval(keepLoop);
  }
}

/** Opens the cluster in `dir`, runs `prepare` on it and closes it (a template being made). */
async function prepareFolder(dir: string, prepare: (driver: Driver) => Promise<void>): Promise<void> {
  const db = await startPglite(dir);
  try {
    await prepare(pgliteDriver(db, async () => {}));
  } finally {
    await db.close();
  }
}

/** Scratch folders of this process' in-memory databases, removed on close and at exit. */
const scratch = new Set<string>();
let exitHook = false;

/**
 * A folder standing in for an in-memory database: PGlite's own in-memory file system keeps every
 * file in this process (≈ 170 MB more right after opening, and all the data later), a folder on
 * disk does not. Undefined when no cluster could be made there (then PGlite's memory is used).
 */
async function scratchFolder(cluster: NewCluster, notice?: Notice): Promise<string | undefined> {
  const dir = await mkdtemp(join(tmpdir(), 'weft-memory-')).catch(() => undefined);
  if (!dir) return undefined;
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const d of scratch) rmSync(d, { recursive: true, force: true });
    });
  }
  scratch.add(dir);
  if (await initDataDir(dir, cluster, prepareFolder, notice)) return dir;
  await dropScratch(dir);
  return undefined;
}

async function dropScratch(dir: string): Promise<void> {
  scratch.delete(dir);
  await rm(dir, { recursive: true, force: true });
}

/**
 * PGlite runs Postgres in this process (WASM). One connection: PGlite serialises queries and holds
 * other callers back while a transaction runs, so transactions never interleave.
 * `dataDir` is a folder, or undefined for a database that keeps nothing once closed.
 * `newCluster`: what a new cluster starts with, made once on the cached template it is copied
 * from (see pglite-template.ts). `notice`: told when a template has to be made first.
 */
export async function openPgliteDriver(
  dataDir?: string,
  newCluster: NewCluster = { sql: '' },
  notice?: Notice,
): Promise<Driver> {
  const temporary = dataDir === undefined ? await scratchFolder(newCluster, notice) : undefined;
  let db: PGlite;
  try {
    db = await openPglite(dataDir ?? temporary, newCluster, notice);
  } catch (error) {
    if (temporary) await dropScratch(temporary);
    throw error;
  }
  return pgliteDriver(db, async () => {
    if (temporary) await dropScratch(temporary);
  });
}

/** What the driver needs of a PGlite instance or of one of its transactions. */
interface PgliteQueryable {
  query(
    sql: string,
    params?: unknown[],
    options?: { blob?: Blob },
  ): Promise<{ rows: unknown[]; affectedRows?: number }>;
}

/** The driver over an open PGlite; `closed` runs after it is closed. */
function pgliteDriver(db: PGlite, closed: () => Promise<void>): Driver {
  const wrap = (q: PgliteQueryable): Queryable => {
    // A COPY given `commit` ends its transaction as far as callers go (the driver's contract, which
    // the Postgres driver needs): a statement after it fails here too, not only on Postgres.
    let committed = false;
    const ready = async () => {
      if (committed) throw new Error('A statement was sent after its transaction committed');
      // PGlite runs a statement on this thread and cannot stop it midway (statement_timeout is
      // not honoured: no timer signal in WASM), so a stopped request stops between statements.
      const turn = timeSlice();
      if (turn) await turn;
      checkRequest();
    };
    return {
      async query<R>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<R>> {
        await ready();
        const res = await q.query(sql, params as unknown[]);
        return { rows: res.rows as R[], rowCount: res.affectedRows ?? res.rows.length };
      },
      // COPY FROM '/dev/blob': PGlite reads the data from a Blob given with the statement. Against
      // the multi-row INSERT over unnested arrays it saves serialising each column as an array
      // parameter (PGlite does that in JavaScript, on this thread) and planning the INSERT:
      // 54 → 48 µs a row of wall time for 1,000-row creates through the API, measured in turns
      // in one process. The slices are all made before the statement (nothing could overlap: the
      // engine runs on this thread); with `commit`, the transaction commits as its function returns.
      async copyIn(table, columns, data, options = {}) {
        await ready();
        if (options.commit) committed = true;
        const blob = new Blob(typeof data === 'string' ? [data] : Array.from<string | Uint8Array>(data));
        const format = options.binary ? ' WITH (FORMAT binary)' : '';
        await q.query(`COPY ${table} (${columns.join(', ')}) FROM '/dev/blob'${format}`, [], { blob });
      },
    };
  };
  const base = wrap(db);
  return {
    kind: 'pglite',
    // The PGlite instance itself, for what the interface does not cover.
    raw: db,
    query: base.query,
    transaction: (fn) => db.transaction((tx) => fn(wrap(tx))),
    exec: async (sql) => {
      await db.exec(sql);
    },
    close: async () => {
      try {
        await db.close();
      } finally {
        await closed();
      }
    },
  };
}
