import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Driver } from './driver.js';
import { openPgliteDriver } from './pglite-driver.js';

// The PGlite driver's COPY (FROM '/dev/blob'), which bulk creates of 50 rows or more go through:
// the same text format, errors and transaction rules as the Postgres driver's.

describe('the PGlite driver', () => {
  let driver: Driver;

  beforeAll(async () => {
    driver = await openPgliteDriver();
    await driver.exec('CREATE TABLE t (id int PRIMARY KEY, note text, ref int REFERENCES t(id))');
  });
  afterAll(async () => {
    await driver.close();
  });

  const count = async () =>
    Number((await driver.query<{ n: string }>('SELECT count(*)::text AS n FROM t')).rows[0]!.n);

  it('copies text-format rows, whole or in slices, inside a transaction', async () => {
    await driver.transaction(async (tx) => {
      await tx.copyIn!('t', ['id', 'note', 'ref'], '1\ttab\\there\t\\N\n2\tback\\\\slash\t1\n');
      await tx.copyIn!('t', ['id', 'note'], ['3\tä\n4\t', 'ß€\n', '', '5\t\\N\n']);
      await tx.query('INSERT INTO t (id, note) VALUES ($1, $2)', [6, 'six']);
    });
    const { rows } = await driver.query('SELECT id, note, ref FROM t ORDER BY id');
    expect(rows).toEqual([
      { id: 1, note: 'tab\there', ref: null },
      { id: 2, note: 'back\\slash', ref: 1 },
      { id: 3, note: 'ä', ref: null },
      { id: 4, note: 'ß€', ref: null },
      { id: 5, note: null, ref: null },
      { id: 6, note: 'six', ref: null },
    ]);
  });

  for (const [what, columns, text, state] of [
    ['a unique violation in the data', ['id', 'note'], '10\ta\n1\tb\n11\tc\n', '23505'],
    ['a foreign key', ['id', 'ref'], '20\t\\N\n21\t99\n', '23503'],
    ['malformed data', ['id', 'note'], '30\tx\nnot-a-number\ty\n', '22P02'],
    ['a column the table lacks', ['id', 'nope'], '40\tx\n', '42703'],
  ] as const) {
    it(`${what}: the error comes back with its SQLSTATE, the transaction rolls back, the next one works`, async () => {
      const before = await count();
      const error = await driver
        .transaction(async (tx) => {
          await tx.query('INSERT INTO t (id) VALUES ($1)', [1000 + before]);
          await tx.copyIn!('t', columns, text);
        })
        .catch((e: unknown) => e);
      expect((error as { code?: string }).code).toBe(state);
      expect(await count()).toBe(before);
      await driver.transaction(async (tx) => {
        await tx.copyIn!('t', ['id'], `${2000 + before}\n`);
      });
      expect(await count()).toBe(before + 1);
    });
  }

  it('a COPY given `commit` is the last statement: one after it fails, as on Postgres', async () => {
    const before = await count();
    const error = await driver
      .transaction(async (tx) => {
        await tx.copyIn!('t', ['id'], '3001\n3002\n', { commit: true });
        await tx.query('SELECT 1');
      })
      .catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/after its transaction committed/);
    expect(await count()).toBe(before);
    await driver.transaction(async (tx) => tx.copyIn!('t', ['id'], '3001\n3002\n', { commit: true }));
    expect(await count()).toBe(before + 2);
  });

  it('a slice that cannot be made fails the COPY with that error; the transaction rolls back', async () => {
    const before = await count();
    function* slices() {
      yield '7000\n';
      throw new Error('no more rows');
    }
    const error = await driver
      .transaction(async (tx) => {
        await tx.query('INSERT INTO t (id) VALUES ($1)', [7001]);
        await tx.copyIn!('t', ['id'], slices());
      })
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe('no more rows');
    expect(await count()).toBe(before);
  });
});
