import type { Driver } from './driver.js';
import { openPgDriver } from './pg-driver.js';
import { openPgliteDriver } from './pglite-driver.js';
import type { NewCluster } from './pglite-template.js';

/** Where the workspace keeps its data. */
export type DatabaseOption =
  | { kind: 'memory' }
  | { kind: 'pglite'; dataDir: string }
  | { kind: 'postgres'; url: string; schema?: string };

/**
 * `statementTimeoutMs`: the data API requests' statement timeout on Postgres (PGlite cannot honour
 * one; its requests are bounded by size instead: see commands/budgets.ts). `newCluster`: on
 * PGlite, what a new cluster starts with (see pglite-template.ts).
 */
export async function openDriver(
  database: DatabaseOption,
  options: { statementTimeoutMs?: number; newCluster?: NewCluster } = {},
): Promise<Driver> {
  switch (database.kind) {
    case 'memory':
      return openPgliteDriver(undefined, options.newCluster);
    case 'pglite':
      return openPgliteDriver(database.dataDir, options.newCluster);
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
