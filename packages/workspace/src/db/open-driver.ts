import type { Driver } from './driver.js';
import { openPgDriver } from './pg-driver.js';
import { openPgliteDriver } from './pglite-driver.js';

/** Where the workspace keeps its data. */
export type DatabaseOption =
  | { kind: 'memory' }
  | { kind: 'pglite'; dataDir: string }
  | { kind: 'postgres'; url: string; schema?: string };

export async function openDriver(database: DatabaseOption): Promise<Driver> {
  switch (database.kind) {
    case 'memory':
      return openPgliteDriver();
    case 'pglite':
      return openPgliteDriver(database.dataDir);
    case 'postgres': {
      const driver = await openPgDriver(database.url, database.schema ? { schema: database.schema } : {});
      if (database.schema)
        await driver.exec(`CREATE SCHEMA IF NOT EXISTS "${database.schema.replace(/"/g, '')}"`);
      return driver;
    }
  }
}
