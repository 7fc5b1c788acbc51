import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyContract } from '../../test/support/copy-contract.js';
import type { Driver } from './driver.js';
import { openPgDriver } from './pg-driver.js';

// The Postgres driver's transactions: BEGIN sent with the first statement, and COPY written in one
// go (statement and data together, the data whole or in slices). Failures must leave the
// connection usable and roll back; the COPY contract both drivers keep is test/support's.

const PG_URL = process.env.WEFT_TEST_DATABASE_URL;
if (!PG_URL)
  console.log(
    'pg driver test: skipped because WEFT_TEST_DATABASE_URL is not set (it needs a Postgres server)',
  );

describe.runIf(PG_URL)('the Postgres driver', () => {
  const schema = `weft_driver_${randomBytes(6).toString('hex')}`;
  let driver: Driver;

  beforeAll(async () => {
    // One connection, so every transaction below reuses the one a failure happened on.
    driver = await openPgDriver(PG_URL!, { schema, max: 1 });
    await driver.exec(
      `CREATE SCHEMA IF NOT EXISTS ${schema};
       CREATE TABLE t (id int PRIMARY KEY, note text, ref int REFERENCES t(id))`,
    );
  });
  afterAll(async () => {
    await driver.query(`DROP SCHEMA ${schema} CASCADE`);
    await driver.close();
  });

  const count = async () =>
    Number((await driver.query<{ n: string }>('SELECT count(*) AS n FROM t')).rows[0]!.n);

  it('copies text-format rows inside a transaction that starts with a parameterless statement', async () => {
    const inside = await driver.transaction(async (tx) => {
      const { rows } = await tx.query<{ n: string }>('SELECT count(*)::text AS n FROM t');
      await tx.copyIn!('t', ['id', 'note', 'ref'], '1\ttab\\there\t\\N\n2\tback\\\\slash\t1\n');
      await tx.query('INSERT INTO t (id, note) VALUES ($1, $2)', [3, 'three']);
      return rows[0]!.n;
    });
    expect(inside).toBe('0');
    const { rows } = await driver.query('SELECT id, note, ref FROM t ORDER BY id');
    expect(rows).toEqual([
      { id: 1, note: 'tab\there', ref: null },
      { id: 2, note: 'back\\slash', ref: 1 },
      { id: 3, note: 'three', ref: null },
    ]);
  });

  copyContract(() => driver);

  it('copies rows given as slices, each sent as it is made, while the caller goes on', async () => {
    const made: string[] = [];
    function* slices() {
      for (const slice of ['6000\tä\n6001\t', 'ß€\n', '', '6002\t\\N\n']) {
        made.push(slice);
        yield slice;
      }
    }
    const rows = await driver.transaction(async (tx) => {
      await tx.query('SELECT 1');
      const copied = tx.copyIn!('t', ['id', 'note'], slices());
      // Once the transaction has begun, every slice is written before copyIn returns.
      expect(made).toHaveLength(4);
      await copied;
      return (await tx.query('SELECT id, note FROM t WHERE id BETWEEN 6000 AND 6999 ORDER BY id')).rows;
    });
    expect(rows).toEqual([
      { id: 6000, note: 'ä' },
      { id: 6001, note: 'ß€' },
      { id: 6002, note: null },
    ]);
  });

  it('a transaction whose first statement has parameters, or that runs none, works as before', async () => {
    const before = await count();
    await driver.transaction(async (tx) => {
      await tx.query('INSERT INTO t (id, note) VALUES ($1, $2)', [5000, 'p']);
    });
    expect(await driver.transaction(async () => 'nothing')).toBe('nothing');
    await expect(
      driver.transaction(async (tx) => {
        await tx.query('SELECT 1');
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect(await count()).toBe(before + 1);
  });
});
