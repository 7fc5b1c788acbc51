import type { Driver } from '../db/driver.js';
import { HOST_TABLES, RUN_EXCHANGES_TABLE, RUN_PLANS_TABLE, RUN_SEEN_TABLE } from './host-ddl.js';

// The app host's own tables, beside the workspace's: sources (an app, its encrypted account and
// sync settings), sync runs (one row per run: its per-type progress and totals, written by its
// jobs page by page, so any process resumes it; and beside it the run's plan, its schema, written
// once), the relation links waiting for their target rows and the rows a full sync has sent. The jobs themselves live in the workspace's job queue.

export async function createHostTables(driver: Driver): Promise<void> {
  await driver.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(4242012)');
    for (const statement of `${HOST_TABLES};${RUN_EXCHANGES_TABLE};${RUN_PLANS_TABLE};${RUN_SEEN_TABLE}`
      .split(';')
      .map((s) => s.trim())
      .filter(Boolean))
      await tx.query(statement);
  });
}
