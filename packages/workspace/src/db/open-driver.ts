import type { Driver } from './driver.js';
import { openPgDriver } from './pg-driver.js';
import { openPgliteDriver } from './pglite-driver.js';

/** Where the workspace keeps its data. */
export type DatabaseOption =
  | { kind: 'memory' }
  | { kind: 'pglite'; dataDir: string }
  | { kind: 'postgres'; url: string; schema?: string };

/**
 * `statementTimeoutMs`: the data API requests' statement timeout on Postgres (PGlite cannot honour
 * one; its requests are bounded by size instead: see commands/budgets.ts). `newClusterSql`: on
 * PGlite, what a new cluster is made with (see pglite-template.ts).
 */
export async function openDriver(
  database: DatabaseOption,
  options: { statementTimeoutMs?: number; newClusterSql?: string } = {},
): Promise<Driver> {
  switch (database.kind) {
    case 'memory':
      return openPgliteDriver(undefined, options.newClusterSql);
    case 'pglite':
      return openPgliteDriver(database.dataDir, options.newClusterSql);
    case 'postgres': {
      const driver = await openPgDriver(database.url, {
        ...(database.schema ? { schema: database.schema } : {}),
        ...(options.statementTimeoutMs ? { statementTimeoutMs: options.statementTimeoutMs } : {}),
      });
      if (database.schema)
        await driver.exec(`CREATE SCHEMA IF NOT EXISTS "${database.schema.replace(/"/g, '')}"`);
      return driver;
    }
  }
}
