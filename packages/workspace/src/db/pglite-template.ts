import { execFile } from 'node:child_process';
import { openAsBlob, readFileSync } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

// A new PGlite cluster costs ~700 MB of RSS in the process that creates it: initdb runs in a
// second WASM instance whose memory the process keeps. So a cluster is initialised once, in a
// short-lived child process, and dumped to a tar file in a per-user cache folder; every later
// new cluster (in any process) starts from that file. A new data folder is even filled by a child
// process, so the serving process only ever opens an existing cluster (~150 MB of PGlite).

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

export function templatePath(): string {
  return join(cacheDir(), `cluster-${pgliteVersion()}.tar`);
}

/** Forgets a template that failed to load, so the next open builds it again. */
export async function dropTemplate(): Promise<void> {
  await rm(templatePath(), { force: true });
}

// The child process. `template <file>`: initdb in memory, dump the data folder next to the final
// name and rename it into place (atomic: processes racing to build it never read half a file).
// `folder <dir> <file>`: a new cluster in <dir>, from the template when <file> is not empty.
const CHILD = `
const { PGlite } = require(process.argv[1]);
const fs = require('node:fs');
const [mode, target, template] = process.argv.slice(2);
(async () => {
  if (mode === 'template') {
    const db = await PGlite.create();
    const blob = await db.dumpDataDir('none');
    const tmp = target + '.' + process.pid;
    fs.writeFileSync(tmp, Buffer.from(await blob.arrayBuffer()));
    await db.close();
    fs.renameSync(tmp, target);
  } else {
    const loadDataDir = template ? await fs.openAsBlob(template) : undefined;
    const db = await PGlite.create({ dataDir: target, ...(loadDataDir ? { loadDataDir } : {}) });
    await db.close();
  }
})().catch((e) => { console.error(e); process.exit(1); });
`;

const child = (...args: string[]) =>
  run(process.execPath, ['-e', CHILD, pgliteEntry(), ...args], { maxBuffer: 1024 * 1024 });

let building: Promise<unknown> | undefined;

/** The template's path once it exists (built on first use), or undefined when it cannot be built. */
async function ensureTemplate(): Promise<string | undefined> {
  const path = templatePath();
  const exists = () =>
    stat(path).then(
      (s) => s.size > 0,
      () => false,
    );
  if (await exists()) return path;
  building ??= mkdir(cacheDir(), { recursive: true, mode: 0o700 })
    .then(() => child('template', path))
    .finally(() => {
      building = undefined;
    });
  try {
    await building;
  } catch {
    return undefined;
  }
  return (await exists()) ? path : undefined;
}

/**
 * The dump of a freshly initialised cluster, backed by the cached file (not copied into this
 * process' memory), or undefined when it cannot be built: PGlite then runs initdb itself.
 */
export async function pgliteTemplate(): Promise<Blob | undefined> {
  const path = await ensureTemplate();
  return path ? openAsBlob(path).catch(() => undefined) : undefined;
}

/** Creates a cluster in the (new) folder `dataDir` in a child process; false when that failed. */
export async function initDataDir(dataDir: string): Promise<boolean> {
  const template = await ensureTemplate();
  try {
    await child('folder', dataDir, template ?? '');
    return true;
  } catch {
    return false;
  }
}
