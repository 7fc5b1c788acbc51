import { randomBytes } from 'node:crypto';
import { readdir, rename, rm, stat, utimes } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { pidExists } from './process-start-time.js';

// A template cluster is named by what it holds (PGlite's version, the tables' SQL, the code that
// prepares it: pglite-template.ts), so an upgrade of weft or of PGlite, or a change of the tables,
// makes a new one and leaves the old beside it: ~40 MB each, and as much again for its prepared
// copy and for its spare. Nothing else ever removes them, so the cache folder only grew (2 GB on
// a machine that ran weft's own tests for a few days). A process that uses templates therefore
// marks them used, and removes the ones no process has used for STALE_MS.
//
// A template is only a cache: one removed while still wanted is made again by the next start that
// needs it (a few seconds, once). A removal renames the folder away first, so a process never
// starts a copy of a half-removed one.

/** Unused this long, a template (with its spare) is removed from the cache folder. */
export const STALE_MS = 24 * 60 * 60 * 1000;

/** Folders renamed away for removal: `.pruning-<pid>-<random>`. */
const PRUNING = /^\.pruning-(\d+)-[0-9a-f]+$/;
/** A builder's temporary folder beside its template: `<template>.<pid>` or `<template>.<pid>.<ms>`. */
const BUILDING = /\.(\d+)(?:\.\d+)?$/;
/** A spare being made or claimed (template-spare.ts removes those of gone processes itself). */
const SPARE_OWN = /\.spare-(?:claimed|tmp)-\d+-[0-9a-f]+$/;

/** Marks the templates in `used` as used now (their folders' modification time). */
async function markUsed(used: readonly string[]): Promise<void> {
  const now = new Date();
  await Promise.all(used.map((path) => utimes(path, now, now).catch(() => {})));
}

/**
 * Removes from the folder of the templates in `used` every other template (and its spare) unused
 * for `staleMs`, and what builders and removals that died left there. The ones in `used` are
 * marked used first. Answers the names removed.
 */
export async function pruneTemplates(
  used: readonly string[],
  options: { staleMs?: number; now?: number } = {},
): Promise<string[]> {
  if (used.length === 0) return [];
  const dir = dirname(used[0] as string);
  await markUsed(used);
  const keep = new Set(used.map((path) => basename(path)));
  const staleBefore = (options.now ?? Date.now()) - (options.staleMs ?? STALE_MS);
  const names = await readdir(dir);
  const lastUsed = async (name: string) =>
    (await stat(join(dir, name)).catch(() => undefined))?.mtimeMs ?? Number.NEGATIVE_INFINITY;
  const removed: string[] = [];
  for (const name of names) {
    const pruning = PRUNING.exec(name);
    if (pruning) {
      if (!pidExists(Number(pruning[1]))) await rm(join(dir, name), { recursive: true, force: true });
      continue;
    }
    if (!name.startsWith('cluster-') || SPARE_OWN.test(name)) continue;
    const building = BUILDING.exec(name);
    if (building) {
      if (!pidExists(Number(building[1])) && (await lastUsed(name)) < staleBefore) {
        await remove(dir, name);
        removed.push(name);
      }
      continue;
    }
    // A spare goes with its template: kept while the template is, whatever its own age.
    const owner = name.endsWith('.spare') ? name.slice(0, -'.spare'.length) : name;
    if (keep.has(owner)) continue;
    const ownerUsed = names.includes(owner) ? await lastUsed(owner) : await lastUsed(name);
    if (ownerUsed >= staleBefore) continue;
    await remove(dir, name);
    removed.push(name);
  }
  return removed;
}

/** Renames the entry away (atomic: nobody starts a copy of it after this), then deletes it. */
async function remove(dir: string, name: string): Promise<void> {
  const away = join(dir, `.pruning-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    await rename(join(dir, name), away);
  } catch {
    return; // gone already, or taken by another process
  }
  await rm(away, { recursive: true, force: true });
}
