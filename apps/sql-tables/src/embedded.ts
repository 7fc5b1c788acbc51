// The embedded database's storage: a PGlite cluster in a directory on disk, created by a child
// process and then opened in a worker thread (worker-database.ts). Opening an existing cluster skips initdb, whose garbage would
// otherwise keep the serving process at 500-800 MB of RSS; on disk (not `memory://`) the data
// is in files the operating system caches, not in the process's JavaScript memory. Figures in
// the README.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { PGLITE_SETTINGS } from './pglite-settings.js';
import { type WorkerDatabase, workerDatabase } from './worker-database.js';

const INIT_SCRIPT = fileURLToPath(new URL('./init-cluster.ts', import.meta.url));
/** tsx's loader by absolute URL, so the child finds it whatever the working directory. */
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** Creates an empty cluster in `dir` (which must be empty or absent) in a child process. */
export async function initCluster(dir: string): Promise<void> {
  const child = spawn(process.execPath, ['--import', TSX, INIT_SCRIPT, dir], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`creating the embedded database failed (exit ${code}): ${stderr.trim()}`);
}

/** Opens the cluster in `dir` (created by `initCluster`) with the app's settings, in this thread. */
export function openCluster(dir: string): Promise<PGlite> {
  return PGlite.create(dir, { postgresqlconf: PGLITE_SETTINGS });
}

export interface TemporaryCluster {
  /** The cluster, served by a worker thread. */
  db: WorkerDatabase;
  dir: string;
  /** Closes the database and removes its directory. */
  close(): Promise<void>;
}

/** A fresh cluster in a temporary directory, removed again by `close()`. */
export async function temporaryCluster(prefix = 'weft-sql-tables-'): Promise<TemporaryCluster> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  // A process that exits without closing (process.exit on SIGTERM) still removes the directory.
  const removeOnExit = () => rmSync(dir, { recursive: true, force: true });
  process.once('exit', removeOnExit);
  try {
    await initCluster(dir);
    const db = await workerDatabase(dir);
    // Kept apart: a caller may put this cluster's close() in the database's place (demo.ts).
    const closeDb = db.close;
    return {
      db,
      dir,
      close: async () => {
        await closeDb().catch(() => {});
        process.off('exit', removeOnExit);
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    process.off('exit', removeOnExit);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
