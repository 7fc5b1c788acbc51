// Templates of PGlite clusters nobody has used for a day leave the cache folder (with their spares
// and what dead builders left there); the ones in use, and the ones other processes used lately,
// stay. And a start that makes a new database does that upkeep in the background.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openPgliteDriver } from '../src/db/pglite-driver.js';
import { pruneTemplates, STALE_MS } from '../src/db/template-prune.js';
import { templatePath } from '../src/db/pglite-template.js';

const root = mkdtempSync(join(tmpdir(), 'weft-prune-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const DAY = 24 * 60 * 60 * 1000;
/** A process id that is not running (the largest Linux allows is 4,194,304). */
const DEAD_PID = 4_194_303;

/** A stand-in cluster folder in `dir`, last modified `ageMs` ago. */
function cluster(dir: string, name: string, ageMs: number): string {
  const path = join(dir, name);
  mkdirSync(join(path, 'base'), { recursive: true });
  writeFileSync(join(path, 'PG_VERSION'), '17\n');
  const at = new Date(Date.now() - ageMs);
  utimesSync(path, at, at);
  return path;
}

describe('pruneTemplates', () => {
  it('removes the templates unused for a day with their spares, and keeps the rest', async () => {
    const dir = mkdtempSync(join(root, 'cache-'));
    const base = cluster(dir, 'cluster-0.5.16-aaaaaaaaaaaaaaaa', 3 * DAY);
    const prepared = cluster(dir, 'cluster-0.5.16-aaaaaaaaaaaaaaaa-11111111', 3 * DAY);
    cluster(dir, 'cluster-0.5.16-aaaaaaaaaaaaaaaa-11111111.spare', 3 * DAY);
    // An older prepare of the same tables, and an older PGlite's template with its spare.
    cluster(dir, 'cluster-0.5.16-aaaaaaaaaaaaaaaa-22222222', 2 * DAY);
    cluster(dir, 'cluster-0.5.15-bbbbbbbbbbbbbbbb', 5 * DAY);
    cluster(dir, 'cluster-0.5.15-bbbbbbbbbbbbbbbb.spare', 60_000);
    // Another checkout's template, used an hour ago, and its spare made long before.
    cluster(dir, 'cluster-0.5.17-cccccccccccccccc', 60 * 60 * 1000);
    cluster(dir, 'cluster-0.5.17-cccccccccccccccc.spare', 4 * DAY);
    // A file of an older layout.
    writeFileSync(join(dir, 'cluster-0.5.14.tar'), 'x');
    utimesSync(
      join(dir, 'cluster-0.5.14.tar'),
      new Date(Date.now() - 9 * DAY),
      new Date(Date.now() - 9 * DAY),
    );
    // Not ours to judge: a spare being made by another process, and a file that is no cluster.
    cluster(dir, 'cluster-0.5.17-cccccccccccccccc.spare-tmp-123-abcd1234', 3 * DAY);
    writeFileSync(join(dir, 'notes.txt'), 'mine');

    const before = Date.now();
    const removed = await pruneTemplates([base, prepared]);

    expect(removed.sort()).toEqual([
      'cluster-0.5.14.tar',
      'cluster-0.5.15-bbbbbbbbbbbbbbbb',
      'cluster-0.5.15-bbbbbbbbbbbbbbbb.spare',
      'cluster-0.5.16-aaaaaaaaaaaaaaaa-22222222',
    ]);
    expect(readdirSync(dir).sort()).toEqual([
      'cluster-0.5.16-aaaaaaaaaaaaaaaa',
      'cluster-0.5.16-aaaaaaaaaaaaaaaa-11111111',
      'cluster-0.5.16-aaaaaaaaaaaaaaaa-11111111.spare',
      'cluster-0.5.17-cccccccccccccccc',
      'cluster-0.5.17-cccccccccccccccc.spare',
      'cluster-0.5.17-cccccccccccccccc.spare-tmp-123-abcd1234',
      'notes.txt',
    ]);
    // The templates in use are marked used: the next process' prune counts from now.
    expect(statSync(base).mtimeMs).toBeGreaterThanOrEqual(before - 1000);
    expect(statSync(prepared).mtimeMs).toBeGreaterThanOrEqual(before - 1000);
  });

  it("drops what builders and removals that died left, and leaves a live builder's folder", async () => {
    const dir = mkdtempSync(join(root, 'cache-'));
    const base = cluster(dir, 'cluster-0.5.16-dddddddddddddddd', 0);
    cluster(dir, `cluster-0.5.16-eeeeeeeeeeeeeeee.${DEAD_PID}`, 2 * DAY);
    cluster(dir, `cluster-0.5.16-dddddddddddddddd-33333333.${DEAD_PID}.1700000000000`, 2 * DAY);
    // A dead builder's folder of a minute ago may be another machine's (a shared /tmp): kept.
    cluster(dir, `cluster-0.5.16-ffffffffffffffff.${DEAD_PID}`, 60_000);
    cluster(dir, `cluster-0.5.16-dddddddddddddddd-44444444.${process.pid}`, 2 * DAY);
    cluster(dir, `.pruning-${DEAD_PID}-0badc0de`, 2 * DAY);

    const removed = await pruneTemplates([base]);

    expect(removed.sort()).toEqual([
      `cluster-0.5.16-dddddddddddddddd-33333333.${DEAD_PID}.1700000000000`,
      `cluster-0.5.16-eeeeeeeeeeeeeeee.${DEAD_PID}`,
    ]);
    expect(readdirSync(dir).sort()).toEqual([
      'cluster-0.5.16-dddddddddddddddd',
      `cluster-0.5.16-dddddddddddddddd-44444444.${process.pid}`,
      `cluster-0.5.16-ffffffffffffffff.${DEAD_PID}`,
    ]);
  });

  it('removes nothing used within the time given', async () => {
    const dir = mkdtempSync(join(root, 'cache-'));
    const base = cluster(dir, 'cluster-0.5.16-1234567812345678', 0);
    cluster(dir, 'cluster-0.5.16-8765432187654321', STALE_MS - 60_000);
    expect(await pruneTemplates([base])).toEqual([]);
    expect(await pruneTemplates([base], { staleMs: 30_000 })).toEqual(['cluster-0.5.16-8765432187654321']);
  });
});

describe('a new database', () => {
  it('removes a stale template from the real cache folder after its start, in the background', async () => {
    // The cache folder every start on this machine uses; the planted template is nobody's.
    const cache = dirname(templatePath(''));
    mkdirSync(cache, { recursive: true });
    const planted = cluster(cache, `cluster-0.0.0-${process.pid}aaaaaaaa`, 2 * DAY);
    const folder = mkdtempSync(join(root, 'data-'));
    const driver = await openPgliteDriver(folder);
    try {
      // The upkeep runs after the spare is made (SPARE_DELAY_MS after the start, then a copy).
      for (let waited = 0; existsSync(planted) && waited < 30_000; waited += 250)
        await new Promise((r) => setTimeout(r, 250));
      expect(existsSync(planted)).toBe(false);
      expect((await driver.query<{ n: number }>('SELECT 1 AS n')).rows).toEqual([{ n: 1 }]);
    } finally {
      await driver.close();
    }
  }, 60_000);
});
