import type { Driver } from './driver.js';
import type { NewCluster } from './pglite-template.js';

// Each engine's driver is loaded when it is opened: a PGlite start never loads pg, a Postgres one
// never loads PGlite.

/** Where the workspace keeps its data. */
export type DatabaseOption =
  | { kind: 'memory' }
  | { kind: 'pglite'; dataDir: string }
  | { kind: 'postgres'; url: string; schema?: string };

/**
 * `statementTimeoutMs`: the data API requests' statement timeout on Postgres (PGlite cannot honour
 * one; its requests are bounded by size instead: see commands/budgets.ts). `newCluster`: on
 * PGlite, what a new cluster starts with (see pglite-template.ts); `notice` is told when its
 * template has to be made first (a wait of seconds).
 */
export async function openDriver(
  database: DatabaseOption,
  options: { statementTimeoutMs?: number; newCluster?: NewCluster; notice?: (message: string) => void } = {},
): Promise<Driver> {
  switch (database.kind) {
    case 'memory':
    case 'pglite': {
      const { openPgliteDriver } = await import('./pglite-driver.js');
      return openPgliteDriver(
        database.kind === 'pglite' ? database.dataDir : undefined,
        options.newCluster,
        options.notice,
      );
    }
    case 'postgres': {
      const { openPgDriver } = await import('./pg-driver.js');
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
