import { ensureBuiltinTypes } from '../../src/schema/builtins.js';
import { touchSchema } from '../../src/schema/schema-store.js';
import type { Harness } from './databases.js';

/**
 * The statements ensureBuiltinTypes sends on the workspace's database, as a start runs it: one
 * list per run, `times` runs in a row (a second start should find nothing to add).
 */
export async function builtinStartStatements(h: Harness, times = 2): Promise<string[][]> {
  const runs: string[][] = [];
  for (let i = 0; i < times; i++) {
    const statements: string[] = [];
    await h.ws.driver.transaction((tx) =>
      ensureBuiltinTypes({
        ...tx,
        query: ((sql: string, params?: readonly unknown[]) => {
          statements.push(sql);
          return tx.query(sql, params);
        }) as typeof tx.query,
      }),
    );
    runs.push(statements);
  }
  return runs;
}

/**
 * Takes `fields` of `type` away as a workspace made before they existed lacks them: their
 * catalogue rows and columns, and, with `meta`, the type's meta set to it.
 */
export async function forgetFields(
  h: Harness,
  type: string,
  fields: string[],
  meta?: Record<string, unknown>,
): Promise<void> {
  await h.ws.driver.transaction(async (tx) => {
    const { rows } = await tx.query<{ tbl: string; id: string }>(
      `SELECT tbl, id FROM svc_types WHERE name = $1`,
      [type],
    );
    const { tbl, id } = rows[0]!;
    if (meta)
      await tx.query(`UPDATE svc_types SET meta = $2::jsonb WHERE id = $1`, [id, JSON.stringify(meta)]);
    const { rows: cols } = await tx.query<{ storage: { col: string } }>(
      `DELETE FROM svc_fields WHERE type_id = $1 AND name = ANY($2::text[]) RETURNING storage`,
      [id, fields],
    );
    for (const c of cols) await tx.query(`ALTER TABLE ${tbl} DROP COLUMN ${c.storage.col}`);
    await touchSchema(tx);
  });
}
