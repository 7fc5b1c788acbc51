import { expect, it } from 'vitest';
import type { Driver } from '../../src/db/driver.js';

// What a driver's COPY promises whatever the engine (Driver's copyIn): the text format, errors
// with their SQLSTATE and a rollback that leaves the driver usable, `commit` ending the
// transaction, and a slice that cannot be made failing the COPY. Run by each driver's own test on a
// table `t (id int PRIMARY KEY, note text, ref int REFERENCES t(id))`; ids from 10,000 up are this
// contract's.

export function copyContract(driver: () => Driver): void {
  const count = async () =>
    Number((await driver().query<{ n: string }>('SELECT count(*)::text AS n FROM t')).rows[0]!.n);

  it('copies text-format rows, whole or in slices: escapes, nulls and multi-byte text', async () => {
    await driver().transaction(async (tx) => {
      await tx.copyIn!('t', ['id', 'note', 'ref'], '10001\ttab\\there\t\\N\n10002\tback\\\\slash\t10001\n');
      await tx.copyIn!('t', ['id', 'note'], ['10003\tä\n10004\t', 'ß€\n', '', '10005\t\\N\n']);
    });
    const { rows } = await driver().query(
      'SELECT id, note, ref FROM t WHERE id BETWEEN 10001 AND 10005 ORDER BY id',
    );
    expect(rows).toEqual([
      { id: 10001, note: 'tab\there', ref: null },
      { id: 10002, note: 'back\\slash', ref: 10001 },
      { id: 10003, note: 'ä', ref: null },
      { id: 10004, note: 'ß€', ref: null },
      { id: 10005, note: null, ref: null },
    ]);
  });

  for (const [what, columns, text, state] of [
    ['a unique violation in the data', ['id', 'note'], '10010\ta\n10010\tb\n10011\tc\n', '23505'],
    ['a foreign key checked at the end', ['id', 'ref'], '10020\t\\N\n10021\t99\n', '23503'],
    ['malformed data', ['id', 'note'], '10030\tx\nnot-a-number\ty\n', '22P02'],
    ['a statement that fails before the copy starts', ['id', 'nope'], '10040\tx\n', '42703'],
  ] as const) {
    it(`${what}: the error comes back with its SQLSTATE, the transaction rolls back, the driver goes on`, async () => {
      const before = await count();
      const error = await driver()
        .transaction(async (tx) => {
          await tx.query('INSERT INTO t (id) VALUES ($1)', [11_000 + before]);
          await tx.copyIn!('t', columns, text);
        })
        .catch((e: unknown) => e);
      expect((error as { code?: string }).code).toBe(state);
      expect(await count()).toBe(before);
      // The next transaction, COPY included, runs as if nothing happened.
      await driver().transaction(async (tx) => {
        await tx.copyIn!('t', ['id'], `${12_000 + before}\n`);
      });
      expect(await count()).toBe(before + 1);
    });
  }

  it('a COPY given `commit` is the last statement: one after it fails; if it fails nothing is committed', async () => {
    const before = await count();
    await driver().transaction(async (tx) => {
      await tx.query('SELECT 1');
      await tx.query('INSERT INTO t (id) VALUES ($1)', [13_000]);
      await tx.copyIn!('t', ['id'], '13001\n13002\n', { commit: true });
      await expect(tx.query('SELECT 1')).rejects.toThrow(/after its transaction committed/);
    });
    expect(await count()).toBe(before + 3);
    const error = await driver()
      .transaction(async (tx) => {
        await tx.query('INSERT INTO t (id) VALUES ($1)', [13_003]);
        await tx.copyIn!('t', ['id'], '13004\n13001\n', { commit: true });
      })
      .catch((e: unknown) => e);
    expect((error as { code?: string }).code).toBe('23505');
    expect(await count()).toBe(before + 3);
    await driver().transaction(async (tx) => tx.copyIn!('t', ['id'], '13005\n', { commit: true }));
    expect(await count()).toBe(before + 4);
  });

  it('a slice that cannot be made fails the COPY with that error; the transaction rolls back', async () => {
    const before = await count();
    function* slices() {
      yield '14000\n';
      throw new Error('no more rows');
    }
    const error = await driver()
      .transaction(async (tx) => {
        await tx.query('INSERT INTO t (id) VALUES ($1)', [14_001]);
        await tx.copyIn!('t', ['id'], slices(), { commit: true });
      })
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe('no more rows');
    expect(await count()).toBe(before);
    await driver().transaction(async (tx) => tx.copyIn!('t', ['id'], ['14002\n'], { commit: true }));
    expect(await count()).toBe(before + 1);
  });
}
