import type { Driver } from '../db/driver.js';
import { RUN_EXCHANGES_TABLE } from './run-exchanges.js';

// The app host's own tables, beside the workspace's: sources (an app, its encrypted account and
// sync settings), sync runs (one row per run: its schema, per-type progress and totals, written
// by its jobs page by page, so any process resumes it) and the relation links waiting for their
// target rows. The jobs themselves live in the workspace's job queue.
const HOST_TABLES = `
CREATE TABLE IF NOT EXISTS weft_host_sources (
  id uuid PRIMARY KEY, url text NOT NULL, namespace text NOT NULL UNIQUE, name text NOT NULL,
  descriptor jsonb NOT NULL, logo text, auth_id text NOT NULL, account_name text,
  account_enc text, types jsonb NOT NULL DEFAULT '[]', filter jsonb NOT NULL DEFAULT '{}',
  keep_unsynced boolean NOT NULL DEFAULT false, interval_seconds integer,
  webhook jsonb, webhooks_enabled boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS weft_host_runs (
  id uuid PRIMARY KEY, source_id uuid NOT NULL REFERENCES weft_host_sources(id) ON DELETE CASCADE,
  kind text NOT NULL, status text NOT NULL, mode text, last_synchronized_at timestamptz,
  started_at timestamptz NOT NULL DEFAULT clock_timestamp(), finished_at timestamptz,
  pages integer NOT NULL DEFAULT 0, rows_set integer NOT NULL DEFAULT 0,
  rows_removed integer NOT NULL DEFAULT 0, retries integer NOT NULL DEFAULT 0,
  error text, duration_ms integer, progress jsonb NOT NULL DEFAULT '{}');
CREATE INDEX IF NOT EXISTS weft_host_runs_source ON weft_host_runs (source_id, started_at DESC);
CREATE TABLE IF NOT EXISTS weft_host_oauth (
  state text PRIMARY KEY, request_enc text NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS weft_host_links (
  run_id uuid NOT NULL, type text NOT NULL, field text NOT NULL, entity_id uuid NOT NULL,
  targets jsonb NOT NULL, PRIMARY KEY (run_id, type, field, entity_id));
`;

export async function createHostTables(driver: Driver): Promise<void> {
  await driver.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(4242012)');
    for (const statement of `${HOST_TABLES};${RUN_EXCHANGES_TABLE}`
      .split(';')
      .map((s) => s.trim())
      .filter(Boolean))
      await tx.query(statement);
  });
}
