import { beforeAll, expect, it } from 'vitest';
import type { Queryable } from '../src/db/driver.js';
import { touchSchema } from '../src/schema/schema-store.js';
import { describeEachDatabase, typeArgs, useWorkspace } from './support/databases.js';

// A top-level svc.entity/query is one statement when its answer has rows: compiled against the
// catalog last loaded and guarded by its schema token in the same statement, where it used to ask
// for the token first (src/commands/entity-query.ts). A schema changed meanwhile by another
// process (here: straight in the database, so this process' catalog is not reloaded) is never
// read through the old catalog.

const BOOK = 'uq/book';

describeEachDatabase('a query without its catalog check', (target) => {
  // No webhook worker: its polling would go through the same driver while statements are counted.
  const h = useWorkspace(target, { webhooks: false });
  const reader = { id: '', token: '' };

  beforeAll(async () => {
    const created = await h.ws.createUser({ name: 'Reader' });
    reader.id = created.user['svc/id'];
    reader.token = created.token;
    await h.run(
      'schema.type/create',
      typeArgs(BOOK, [
        ['uq/pages', 'svc/int'],
        ['uq/code', 'svc/text'],
      ]),
    );
    await h.run('svc.command/batch', {
      commands: [1, 2, 3].map((i) => ({
        command: 'svc.entity/create',
        args: { type: BOOK, entity: { 'uq/name': `Book ${i}`, 'uq/pages': i * 100, 'uq/code': `c${i}` } },
      })),
    });
  });

  /**
   * The statements sent while `fn` runs (through the workspace's driver, outside transactions),
   * but the request's token look-up.
   */
  const counted = async (fn: () => Promise<unknown>) => {
    const driver = h.ws.driver as Queryable;
    const query = driver.query;
    const sent: string[] = [];
    driver.query = ((sql: string, params?: readonly unknown[]) => {
      if (!sql.includes('FROM svc_tokens')) sent.push(sql);
      return query.call(driver, sql, params);
    }) as Queryable['query'];
    try {
      return { result: await fn(), sent };
    } finally {
      driver.query = query;
    }
  };
  const pages = (where: unknown[] | undefined, params: Record<string, unknown> = {}, token?: string) =>
    h.attempt(
      'svc.entity/query',
      {
        query: {
          'q/from': BOOK,
          'q/select': ['uq/name', 'uq/pages'],
          ...(where ? { 'q/where': where } : {}),
          'q/order-by': [[['uq/pages'], 'q/asc']],
        },
        params,
      },
      token,
    );
  /** A schema change as another process makes it: the catalog here is not reloaded. */
  const elsewhere = (sql: (table: string, col: (field: string) => Promise<string>) => Promise<string[]>) =>
    h.ws.driver.transaction(async (tx) => {
      const { rows } = await tx.query<{ tbl: string; id: string }>(
        `SELECT tbl, id FROM svc_types WHERE name = $1`,
        [BOOK],
      );
      const { tbl, id } = rows[0]!;
      const col = async (field: string) =>
        (
          await tx.query<{ col: string }>(
            `SELECT storage->>'col' AS col FROM svc_fields WHERE type_id = $1 AND name = $2`,
            [id, field],
          )
        ).rows[0]!.col;
      for (const s of await sql(tbl, col)) await tx.query(s.replaceAll('$type', `'${id}'`));
      await touchSchema(tx);
    });

  it('answers rows in one statement, and no row after asking whether the schema changed', async () => {
    await pages(undefined); // the catalog is loaded
    const some = await counted(() => pages(['>', ['uq/pages'], '$p'], { $p: 150 }));
    expect((some.result as any).result).toEqual([
      { 'uq/name': 'Book 2', 'uq/pages': 200 },
      { 'uq/name': 'Book 3', 'uq/pages': 300 },
    ]);
    expect(some.sent).toHaveLength(1);
    expect(some.sent[0]).toContain('schema_token');
    const none = await counted(() => pages(['>', ['uq/pages'], '$p'], { $p: 1000 }));
    expect((none.result as any).result).toEqual([]);
    expect(none.sent).toHaveLength(2);
    // Counts over the whole query: one row, one statement.
    const count = await counted(() =>
      h.run('svc.entity/query', { query: { 'q/from': BOOK, 'q/select': { n: ['q/count', 'svc/id'] } } }),
    );
    expect(count.result).toEqual([{ n: 3 }]);
    expect(count.sent).toHaveLength(1);
  });

  it('a field renamed elsewhere: the new name is read, the old one refused', async () => {
    await elsewhere(async () => [
      `UPDATE svc_fields SET name = 'uq/length' WHERE type_id = $type AND name = 'uq/pages'`,
    ]);
    const renamed = await h.run('svc.entity/query', {
      query: { 'q/from': BOOK, 'q/select': ['uq/length'], 'q/order-by': [[['uq/length'], 'q/asc']] },
    });
    expect(renamed).toEqual([{ 'uq/length': 100 }, { 'uq/length': 200 }, { 'uq/length': 300 }]);
    await elsewhere(async () => [
      `UPDATE svc_fields SET name = 'uq/pages' WHERE type_id = $type AND name = 'uq/length'`,
    ]);
    // This process read the catalog back (the query above); it is stale again now.
    const stale = await pages(undefined);
    expect(stale.result).toHaveLength(3);
    await elsewhere(async () => [
      `UPDATE svc_fields SET name = 'uq/length' WHERE type_id = $type AND name = 'uq/pages'`,
    ]);
    const old = await pages(undefined);
    expect(old.success).toBe(false);
    expect(old.result.code).toBe('unknown-field');
    // Aggregates over the whole query are guarded too (they answer a row even over no entity).
    await elsewhere(async () => [
      `UPDATE svc_fields SET name = 'uq/pages' WHERE type_id = $type AND name = 'uq/length'`,
    ]);
    const count = await h.run('svc.entity/query', {
      query: { 'q/from': BOOK, 'q/select': { n: ['q/count', 'svc/id'], sum: ['q/sum', 'uq/pages'] } },
    });
    expect(count).toEqual([{ n: 3, sum: 600 }]);
  });

  it('a field dropped elsewhere is an unknown field, not a database error', async () => {
    await pages(undefined);
    await elsewhere(async (table, col) => [
      `ALTER TABLE ${table} DROP COLUMN ${await col('uq/code')}`,
      `DELETE FROM svc_fields WHERE type_id = $type AND name = 'uq/code'`,
    ]);
    const r = await h.attempt('svc.entity/query', { query: { 'q/from': BOOK, 'q/select': ['uq/code'] } });
    expect(r.success).toBe(false);
    expect(r.result.code).toBe('unknown-field');
  });

  it('a field secured elsewhere is closed to a user at once, in a count too', async () => {
    const count = () =>
      h.attempt(
        'svc.entity/query',
        { query: { 'q/from': BOOK, 'q/select': { n: ['q/count', 'uq/pages'] } } },
        reader.token,
      );
    expect((await count()).result).toEqual([{ n: 3 }]);
    expect((await pages(undefined, {}, reader.token)).success).toBe(true);
    await elsewhere(async () => [
      `UPDATE svc_types SET meta = meta || '{"svc/secured?": true}' WHERE id = $type`,
      `UPDATE svc_fields SET meta = meta || '{"svc/secured?": true}' WHERE type_id = $type AND name = 'uq/pages'`,
    ]);
    const counted = await count();
    expect(counted.success).toBe(false);
    expect(counted.result.code).toBe('forbidden');
    const closed = await pages(undefined, {}, reader.token);
    expect(closed.success).toBe(false);
    expect(closed.result.code).toBe('forbidden');
  });
});
