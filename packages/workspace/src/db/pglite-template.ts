import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { copyTree } from './copy-tree.js';
import type { Driver } from './driver.js';
import { pruneTemplates } from './template-prune.js';
import { claimSpare, replenishSpareSoon } from './template-spare.js';

// A new PGlite cluster costs ~700 MB of RSS in the process that creates it (initdb runs in a
// second WASM instance whose memory the process keeps) and several seconds. So a cluster is
// initialised once per machine, in a short-lived child process, with the workspace's own tables
// already made (the SQL its caller gives), into a per-user cache folder; a copy of it is then
// opened once to `prepare` it (rows that take the caller's code, such as the built-in types) and
// kept beside it. Every later new cluster (a data folder, an in-memory database's scratch folder)
// is a plain copy of that folder: no child process, no initdb, no bootstrap statements, and the
// serving process only ever opens an existing cluster (~150 MB of PGlite). The copy itself (~40 MB,
// a thousand files) is made ahead of need: a spare copy kept beside the template is moved into
// place (template-spare.ts). Templates no process has used for a day are removed (template-prune.ts).

/** What a new cluster starts with: `sql` run on it, then `prepare` (none of it per database). */
export interface NewCluster {
  sql: string;
  prepare?: (driver: Driver) => Promise<void>;
  /**
   * What `prepare` makes, named: a new value makes a new prepared template where a change in what
   * `prepare` calls (which its own text does not show) would otherwise leave the old one in use.
   */
  prepareVersion?: string;
}

/** Opens the cluster in a folder, runs `prepare` on it and closes it (given by the driver). */
export type PrepareFolder = (dir: string, prepare: (driver: Driver) => Promise<void>) => Promise<void>;

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const pgliteEntry = () => require.resolve('@electric-sql/pglite');

/** The installed PGlite's version (its package.json is not exported, so found beside its entry). */
function pgliteVersion(): string {
  const pkg = JSON.parse(readFileSync(join(dirname(pgliteEntry()), '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

/** The cache folder: per user, so no other account can plant a cluster for us to load. */
function cacheDir(): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  return join(tmpdir(), `weft-pglite-${uid}`);
}

/** The template cluster for this PGlite and this SQL: a new SQL (a schema change) is a new folder. */
export function templatePath(sql: string): string {
  const digest = createHash('sha256').update(sql).digest('hex').slice(0, 16);
  return join(cacheDir(), `cluster-${pgliteVersion()}-${digest}`);
}

export const hasCluster = (dir: string) => existsSync(join(dir, 'PG_VERSION'));

// The child process: initdb into <target>.<pid>, run the SQL read from stdin, close, and rename the
// folder into place (atomic: processes racing to build it never open half a cluster; the loser
// drops its copy).
const CHILD = `
const { PGlite } = require(process.argv[1]);
const fs = require('node:fs');
const target = process.argv[2];
(async () => {
  const sql = fs.readFileSync(0, 'utf8');
  const tmp = target + '.' + process.pid;
  const db = await PGlite.create({ dataDir: tmp });
  if (sql.trim()) await db.exec(sql);
  await db.close();
  try {
    fs.renameSync(tmp, target);
  } catch (e) {
    fs.rmSync(tmp, { recursive: true, force: true });
    if (!fs.existsSync(target + '/PG_VERSION')) throw e;
  }
})().catch((e) => { console.error(e); process.exit(1); });
`;

const building = new Map<string, Promise<unknown>>();

/**
 * What a start says when it has to make a template first: the one wait of several seconds a
 * start can have (the first on a machine, or after a change of the tables or of PGlite).
 */
export const MAKING_TEMPLATE =
  'Making the database template first (once per machine and version of the tables; a few seconds)';

/** The template folder once it exists (built on first use), or undefined when it cannot be built. */
async function ensureTemplate(sql: string, starting: () => void): Promise<string | undefined> {
  const path = templatePath(sql);
  if (hasCluster(path)) return path;
  let build = building.get(path);
  if (!build) {
    starting();
    build = mkdir(cacheDir(), { recursive: true, mode: 0o700 })
      .then(() => {
        const child = run(process.execPath, ['-e', CHILD, pgliteEntry(), path], { maxBuffer: 1024 * 1024 });
        child.child.stdin?.end(sql);
        return child;
      })
      .finally(() => building.delete(path));
    building.set(path, build);
  }
  try {
    await build;
  } catch {
    return undefined;
  }
  return hasCluster(path) ? path : undefined;
}

/** The prepared template beside `base` (made once: on a copy, renamed into place), or undefined. */
async function ensurePrepared(
  base: string,
  prepare: (driver: Driver) => Promise<void>,
  version: string,
  prepareFolder: PrepareFolder,
  starting: () => void,
): Promise<string | undefined> {
  // Named by its code too: an edited `prepare` makes a new template. (What it calls may change
  // unseen: a start makes whatever is missing anyway, so such a template is slower, never wrong.)
  const path = `${base}-${createHash('sha256').update(prepare.toString()).update(version).digest('hex').slice(0, 8)}`;
  if (hasCluster(path)) return path;
  let build = building.get(path);
  if (!build) {
    starting();
    const tmp = `${path}.${process.pid}.${Date.now()}`;
    build = (async () => {
      try {
        await copyTree(base, tmp);
        await prepareFolder(tmp, prepare);
        await rename(tmp, path);
      } finally {
        // Another process renamed its copy first (or this one failed): drop ours.
        await rm(tmp, { recursive: true, force: true });
      }
    })().finally(() => building.delete(path));
    building.set(path, build);
  }
  await build.catch(() => {});
  return hasCluster(path) ? path : undefined;
}

/**
 * Makes a cluster in the (new or empty) folder `dataDir`, a copy of the template `cluster`
 * describes; false when that failed (then PGlite runs initdb itself, and the caller's bootstrap
 * makes the tables). Without a prepared template the plain one (its SQL run) is copied. `notice`
 * is told MAKING_TEMPLATE once when a template has to be made first.
 */
export async function initDataDir(
  dataDir: string,
  cluster: NewCluster,
  prepareFolder: PrepareFolder,
  notice?: (message: string) => void,
): Promise<boolean> {
  let told = false;
  const starting = () => {
    if (!told) notice?.(MAKING_TEMPLATE);
    told = true;
  };
  const base = await ensureTemplate(cluster.sql, starting);
  if (!base) return false;
  const template = cluster.prepare
    ? ((await ensurePrepared(base, cluster.prepare, cluster.prepareVersion ?? '', prepareFolder, starting)) ??
      base)
    : base;
  try {
    if (!(await claimSpare(template, dataDir))) await copyTree(template, dataDir);
    replenishSpareSoon(template, () => pruneTemplates(template === base ? [base] : [base, template]));
    return hasCluster(dataDir);
  } catch {
    return false;
  }
}
