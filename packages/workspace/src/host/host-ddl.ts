// The app host's tables and columns, every statement in one module of its own (no imports), so the
// template new PGlite databases are copied from holds them (new-database.ts) without loading the
// host. Each part still runs its own at the host's start (all IF NOT EXISTS): an older database
// gets what it lacks.

export const HOST_TABLES = `
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

export const RUN_EXCHANGES_TABLE = `
CREATE TABLE IF NOT EXISTS weft_host_run_exchanges (
  run_id uuid NOT NULL REFERENCES weft_host_runs(id) ON DELETE CASCADE,
  seq bigserial, at timestamptz NOT NULL DEFAULT clock_timestamp(),
  type text NOT NULL, page integer NOT NULL, method text NOT NULL, path text NOT NULL,
  request text, status integer, duration_ms integer NOT NULL, items integer,
  warnings jsonb NOT NULL DEFAULT '[]', error_body text, failure text,
  PRIMARY KEY (run_id, seq))`;

/**
 * The rows a full sync of a type that held rows when it began has sent, a page's ids a row,
 * written before the page: at its end the rows it did not send are removed (removeUnsent in
 * write-rows.ts). An array a page, not a row an id: a thousand index entries a page cost PGlite
 * about as much as writing the page's rows.
 */
export const RUN_SEEN_TABLE = `
CREATE TABLE IF NOT EXISTS weft_host_seen (
  run_id uuid NOT NULL REFERENCES weft_host_runs(id) ON DELETE CASCADE, ids uuid[] NOT NULL);
CREATE INDEX IF NOT EXISTS weft_host_seen_run ON weft_host_seen (run_id)`;

/** A run's plan, written once by its start job (run-plan.ts). */
export const RUN_PLANS_TABLE = `
CREATE TABLE IF NOT EXISTS weft_host_run_plans (
  run_id uuid PRIMARY KEY REFERENCES weft_host_runs(id) ON DELETE CASCADE, plan jsonb NOT NULL)`;

export const LEASE_COLUMNS = [
  'ALTER TABLE weft_host_runs ADD COLUMN IF NOT EXISTS lease_owner text',
  'ALTER TABLE weft_host_runs ADD COLUMN IF NOT EXISTS lease_until timestamptz',
];

export const FINGERPRINT_COLUMNS = [
  'ALTER TABLE weft_host_sources ADD COLUMN IF NOT EXISTS schema_fingerprint text',
  'ALTER TABLE weft_host_runs ADD COLUMN IF NOT EXISTS full_reason text',
];

export const VERIFY_SCHEDULE_COLUMN =
  'ALTER TABLE weft_host_sources ADD COLUMN IF NOT EXISTS verify_every_seconds integer';

/** Every statement above as one script. */
export function hostTablesSql(): string {
  return `${[
    HOST_TABLES,
    RUN_EXCHANGES_TABLE,
    RUN_PLANS_TABLE,
    RUN_SEEN_TABLE,
    ...LEASE_COLUMNS,
    ...FINGERPRINT_COLUMNS,
    VERIFY_SCHEDULE_COLUMN,
  ]
    .map((statement) => statement.trim())
    .join(';\n')};\n`;
}
