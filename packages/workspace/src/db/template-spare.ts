import { randomBytes } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { copyTree } from './copy-tree.js';
import { pidExists } from './process-start-time.js';

// A new PGlite cluster is a copy of a cached template (pglite-template.ts): ~40 MB in a thousand
// files, a noticeable part of a start. So a spare copy is kept beside each template, made in the
// background a while after a start, and the next new cluster on the same file system is that spare
// moved into place (a rename per top-level entry) instead of a copy made while the user waits.
//
// Processes race safely: a spare is claimed by renaming it to a name of this process' own (only one
// rename succeeds), and made under a temporary name renamed into place when complete, so a half
// copy is never claimed. A temporary folder left by a process killed mid-copy is removed by the
// next process that makes a spare. One spare per template: a second start right after the first
// copies, as before.

/** How long after a start the next spare is made: out of the way of the start itself. */
export const SPARE_DELAY_MS = 3000;

const spareOf = (template: string) => `${template}.spare`;
/**
 * A name of this process' own beside the spare: the pid lets a later process drop it once we are
 * gone, the random part keeps worker threads (one pid) apart.
 */
const ownName = (template: string, kind: 'claimed' | 'tmp') =>
  `${spareOf(template)}-${kind}-${process.pid}-${randomBytes(4).toString('hex')}`;

/**
 * Moves the spare copy of `template` into `dataDir` (created when missing): true when `dataDir`
 * now holds the cluster, false when there was no spare (or it is on another file system).
 */
export async function claimSpare(template: string, dataDir: string): Promise<boolean> {
  const spare = spareOf(template);
  if (!existsSync(spare)) return false;
  await mkdir(dataDir, { recursive: true });
  // A rename across file systems fails: a data folder elsewhere gets a copy.
  const [from, to] = await Promise.all([stat(dirname(spare)), stat(dataDir)]);
  if (from.dev !== to.dev) return false;
  const claimed = ownName(template, 'claimed');
  try {
    await rename(spare, claimed);
  } catch {
    return false; // another process took it first
  }
  try {
    for (const entry of await readdir(claimed)) await rename(join(claimed, entry), join(dataDir, entry));
    return true;
  } catch {
    return false; // the caller copies the template over what was moved
  } finally {
    await rm(claimed, { recursive: true, force: true });
  }
}

/** Folders this process is copying a spare into, removed should it exit first. */
const inFlight = new Set<string>();
let exitHook = false;

/** Spares to be made SPARE_DELAY_MS after a start, by template: the timer and the upkeep after it. */
const scheduled = new Map<string, { timer: NodeJS.Timeout; then?: () => Promise<unknown> }>();
/** Spares being made now (with their upkeep), from a timer or from makeScheduledSpares. */
const making = new Set<Promise<void>>();

/** Makes the spare of `template`, then runs `then`; neither ever rejects. */
function make(template: string, then?: () => Promise<unknown>): Promise<void> {
  const done = replenishSpare(template)
    .catch(() => {})
    .then(then)
    .then(
      () => {},
      () => {},
    )
    .finally(() => making.delete(done));
  making.add(done);
  return done;
}

/**
 * Makes the spare of `template` (when it has none) SPARE_DELAY_MS from now, without holding the
 * process; then runs `then` (the cache's other upkeep, off the start's path too). A template
 * whose spare is already due keeps the earlier time.
 */
export function replenishSpareSoon(template: string, then?: () => Promise<unknown>): void {
  if (scheduled.has(template)) return;
  const timer = setTimeout(() => {
    scheduled.delete(template);
    void make(template, then);
  }, SPARE_DELAY_MS).unref();
  scheduled.set(template, { timer, then });
}

/**
 * Makes now the spares this process would make soon, and waits for them and for any being made:
 * for a measurement (a benchmark's window) that the copy, about a CPU second on the thread pool,
 * must not land in.
 */
export async function makeScheduledSpares(): Promise<void> {
  for (const [template, { timer, then }] of scheduled) {
    clearTimeout(timer);
    scheduled.delete(template);
    void make(template, then);
  }
  await Promise.all(making);
}

/** Makes the spare of `template` now, unless it has one or this process is making it. */
export async function replenishSpare(template: string): Promise<void> {
  const spare = spareOf(template);
  if (existsSync(spare) || [...inFlight].some((dir) => dir.startsWith(spare))) return;
  await dropLeftovers(template);
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const dir of inFlight) rmSync(dir, { recursive: true, force: true });
    });
  }
  const tmp = ownName(template, 'tmp');
  inFlight.add(tmp);
  try {
    await copyTree(template, tmp);
    // Fails when another process made one meanwhile: then ours is dropped.
    await rename(tmp, spare).catch((error) => {
      if (!existsSync(spare)) throw error;
    });
  } finally {
    inFlight.delete(tmp);
    await rm(tmp, { recursive: true, force: true });
  }
}

/** Removes the temporary and claimed folders (of any template) of processes that are gone (killed mid-copy). */
async function dropLeftovers(template: string): Promise<void> {
  const dir = dirname(template);
  for (const name of await readdir(dir)) {
    const pid = Number(/\.spare-(?:claimed|tmp)-(\d+)-[0-9a-f]+$/.exec(name)?.[1]);
    if (pid && pid !== process.pid && !pidExists(pid))
      await rm(join(dir, name), { recursive: true, force: true });
  }
}
