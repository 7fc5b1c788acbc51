import { ensureBuiltinTypes } from '../../src/schema/builtins.js';
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
