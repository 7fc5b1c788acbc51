// A new PGlite cluster is the template's spare copy moved into place when there is one (made ahead
// of need, db/template-spare.ts): claimed by one process only, never half made, leftovers of gone
// processes dropped; and a real new database opened from a spare holds the template's tables.
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { openPgliteDriver } from '../src/db/pglite-driver.js';
import { templatePath } from '../src/db/pglite-template.js';
import {
  claimSpare,
  makeScheduledSpares,
  replenishSpare,
  replenishSpareSoon,
  SPARE_DELAY_MS,
} from '../src/db/template-spare.js';

const root = mkdtempSync(join(tmpdir(), 'weft-spare-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A stand-in template: a folder with a PG_VERSION and a nested file. */
function fakeTemplate(name: string): string {
  const dir = join(root, name);
  mkdirSync(join(dir, 'base', '1'), { recursive: true });
  writeFileSync(join(dir, 'PG_VERSION'), '17\n');
  writeFileSync(join(dir, 'base', '1', 'data'), 'rows');
  return dir;
}

describe('the template spare', () => {
  it('is made complete, moved into a new folder once, and then there is none', async () => {
    const template = fakeTemplate('t1');
    expect(await claimSpare(template, join(root, 'before'))).toBe(false);
    await replenishSpare(template);
    expect(existsSync(`${template}.spare`)).toBe(true);
    // Two claims at once (as two starting processes): one gets it.
    const [a, b] = await Promise.all([
      claimSpare(template, join(root, 'a')),
      claimSpare(template, join(root, 'b')),
    ]);
    expect([a, b].sort()).toEqual([false, true]);
    const winner = join(root, a ? 'a' : 'b');
    expect(readFileSync(join(winner, 'PG_VERSION'), 'utf8')).toBe('17\n');
    expect(readFileSync(join(winner, 'base', '1', 'data'), 'utf8')).toBe('rows');
    expect(existsSync(`${template}.spare`)).toBe(false);
    // Nothing of the claim is left beside the template, which is untouched.
    expect(readdirSync(root).filter((n) => n.startsWith('t1.'))).toEqual([]);
    expect(readFileSync(join(template, 'base', '1', 'data'), 'utf8')).toBe('rows');
  });

  it('moves into a folder that holds other files already (the data folder lock)', async () => {
    const template = fakeTemplate('t2');
    await replenishSpare(template);
    const folder = join(root, 'with-lock');
    mkdirSync(folder);
    writeFileSync(join(folder, 'weft.lock'), '{}');
    expect(await claimSpare(template, folder)).toBe(true);
    expect(readdirSync(folder).sort()).toEqual(['PG_VERSION', 'base', 'weft.lock']);
  });

  it('drops the half-made copies of processes that are gone, and keeps live ones', async () => {
    const template = fakeTemplate('t3');
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    }).stdout;
    mkdirSync(`${template}.spare-tmp-${gone}-1`);
    mkdirSync(`${template}.spare-claimed-${gone}-2`);
    mkdirSync(`${template}.spare-tmp-${process.ppid}-1`);
    await replenishSpare(template);
    expect(
      readdirSync(root)
        .filter((n) => n.startsWith('t3.'))
        .sort(),
    ).toEqual([`t3.spare`, `t3.spare-tmp-${process.ppid}-1`]);
  });

  it('is made at once, with its upkeep, when one due soon is asked for now; its timer then makes none', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const template = fakeTemplate('t4');
      const upkeep: string[] = [];
      replenishSpareSoon(template, async () => {
        upkeep.push('first');
      });
      // A second start on the same template keeps the time (and the upkeep) of the first.
      replenishSpareSoon(template, async () => {
        upkeep.push('second');
      });
      expect(existsSync(`${template}.spare`)).toBe(false);
      await makeScheduledSpares();
      expect(readFileSync(join(`${template}.spare`, 'base', '1', 'data'), 'utf8')).toBe('rows');
      expect(upkeep).toEqual(['first']);
      // Taken by a start; the timer, had it been left, would now make another.
      expect(await claimSpare(template, join(root, 'c'))).toBe(true);
      vi.advanceTimersByTime(SPARE_DELAY_MS + 1);
      await makeScheduledSpares();
      expect(existsSync(`${template}.spare`)).toBe(false);
      expect(upkeep).toEqual(['first']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('is waited for by makeScheduledSpares when its timer has already started it', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const template = fakeTemplate('t5');
      let upkept = false;
      replenishSpareSoon(template, async () => {
        upkept = true;
      });
      vi.advanceTimersByTime(SPARE_DELAY_MS + 1); // the copy has begun, not ended
      await makeScheduledSpares();
      expect(existsSync(join(`${template}.spare`, 'PG_VERSION'))).toBe(true);
      expect(upkept).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('opens as a real PGlite database holding the template tables', async () => {
    const cluster = { sql: 'CREATE TABLE spare_check (n int); INSERT INTO spare_check VALUES (42);' };
    const first = await openPgliteDriver(join(root, 'db1'), cluster); // makes the template when missing
    await first.close();
    const template = templatePath(cluster.sql);
    await replenishSpare(template);
    // Marked, to tell the spare from a copy (a later spare may be made meanwhile: see SPARE_DELAY_MS).
    writeFileSync(join(`${template}.spare`, 'spare-mark'), '');
    const driver = await openPgliteDriver(join(root, 'db2'), cluster);
    try {
      expect(existsSync(join(root, 'db2', 'spare-mark'))).toBe(true); // the new database was the spare
      expect((await driver.query<{ n: number }>('SELECT n FROM spare_check')).rows).toEqual([{ n: 42 }]);
    } finally {
      await driver.close();
    }
  }, 120_000);
});
