import { createHash } from 'node:crypto';
import { AUTOMATION_TABLES } from '../automations/tables.js';
import type { Driver } from './driver.js';

// The workspace's own tables. Entity data lives in one table per type (t_<n>), created by the
// schema commands; these hold the catalog of types and fields and everything that is not an entity.
const SYSTEM_TABLES = `
CREATE SEQUENCE IF NOT EXISTS svc_name_seq;
CREATE TABLE IF NOT EXISTS svc_meta (key text PRIMARY KEY, value text NOT NULL);
CREATE TABLE IF NOT EXISTS svc_types (
  id uuid PRIMARY KEY, name text NOT NULL UNIQUE, tbl text NOT NULL UNIQUE, meta jsonb NOT NULL DEFAULT '{}',
  description text, builtin boolean NOT NULL DEFAULT false, next_public_id bigint NOT NULL DEFAULT 1,
  ord bigserial);
CREATE TABLE IF NOT EXISTS svc_fields (
  id uuid PRIMARY KEY, type_id uuid NOT NULL REFERENCES svc_types(id) ON DELETE CASCADE, name text NOT NULL,
  field_type text NOT NULL, target_type uuid REFERENCES svc_types(id) ON DELETE CASCADE,
  kind text NOT NULL, storage jsonb NOT NULL, meta jsonb NOT NULL DEFAULT '{}', ord bigserial,
  UNIQUE (type_id, name));
CREATE TABLE IF NOT EXISTS svc_accounts (user_id uuid PRIMARY KEY, admin boolean NOT NULL);
CREATE TABLE IF NOT EXISTS svc_tokens (
  id uuid PRIMARY KEY, user_id uuid NOT NULL, hash text NOT NULL UNIQUE, name text,
  created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS svc_rate (key text PRIMARY KEY, tokens double precision NOT NULL, at timestamptz NOT NULL,
  granted boolean NOT NULL DEFAULT true);
CREATE TABLE IF NOT EXISTS svc_documents (secret uuid PRIMARY KEY, format text NOT NULL, content text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS svc_file_chunks (secret uuid NOT NULL, seq int NOT NULL, data bytea NOT NULL,
  PRIMARY KEY (secret, seq));
CREATE TABLE IF NOT EXISTS svc_views (id uuid PRIMARY KEY, public_id bigserial, name text NOT NULL, type text NOT NULL,
  meta jsonb NOT NULL DEFAULT '{}', container_app jsonb, created_at timestamptz NOT NULL DEFAULT now());
ALTER TABLE svc_views ADD COLUMN IF NOT EXISTS created_by uuid;
CREATE TABLE IF NOT EXISTS svc_webhooks (id bigserial PRIMARY KEY, url text NOT NULL, type_name text NOT NULL,
  state text NOT NULL DEFAULT 'active', version text NOT NULL DEFAULT '2', created_by uuid,
  created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS svc_webhook_runs (id bigserial PRIMARY KEY,
  webhook_id bigint NOT NULL REFERENCES svc_webhooks(id) ON DELETE CASCADE, http_status text NOT NULL,
  elapsed_time text NOT NULL, request_time timestamptz NOT NULL);
CREATE INDEX IF NOT EXISTS svc_webhook_runs_by_hook ON svc_webhook_runs (webhook_id, id DESC);
CREATE TABLE IF NOT EXISTS svc_deliveries (id bigserial PRIMARY KEY,
  webhook_id bigint NOT NULL REFERENCES svc_webhooks(id) ON DELETE CASCADE, body jsonb NOT NULL,
  attempts int NOT NULL DEFAULT 0, next_at timestamptz NOT NULL DEFAULT now(), state text NOT NULL DEFAULT 'pending');
CREATE INDEX IF NOT EXISTS svc_deliveries_due ON svc_deliveries (next_at) WHERE state = 'pending';
CREATE TABLE IF NOT EXISTS svc_page_sessions (id text PRIMARY KEY, sealed text NOT NULL, expires timestamptz NOT NULL);
`;

const STATEMENTS = [SYSTEM_TABLES, AUTOMATION_TABLES].flatMap((ddl) =>
  ddl
    .split(';')
    .map((statement) => statement.trim())
    .filter(Boolean),
);

/**
 * The version of the statements above, kept in `svc_meta` once they ran: a start that finds it
 * current runs none of them (a change to any statement is a new version, run once).
 */
export const DDL_VERSION = createHash('sha256').update(STATEMENTS.join(';\n')).digest('hex').slice(0, 16);

const recordVersion = `INSERT INTO svc_meta (key, value) VALUES ('ddl_version', '${DDL_VERSION}')
  ON CONFLICT (key) DO UPDATE SET value = excluded.value`;

/** The tables as one script, for the cluster new PGlite databases are copied from. */
export function systemTablesSql(): string {
  return `${[...STATEMENTS, recordVersion].join(';\n')};\n`;
}

/** True when this schema's tables were made by the current statements. */
async function current(driver: Driver): Promise<boolean> {
  const { rows } = await driver.query<{ ok: boolean }>(
    `SELECT to_regclass(format('%I.svc_meta', current_schema())) IS NOT NULL AS ok`,
  );
  if (!rows[0]?.ok) return false;
  const version = await driver.query<{ value: string }>(
    `SELECT value FROM svc_meta WHERE key = 'ddl_version'`,
  );
  return version.rows[0]?.value === DDL_VERSION;
}

/**
 * Creates the system and automation tables when their version is not current (once per version;
 * several processes may start at the same time on one Postgres), and this workspace's identity.
 */
export async function createSystemTables(driver: Driver): Promise<void> {
  const identity = `INSERT INTO svc_meta (key, value) VALUES ('schema_id', gen_random_uuid()::text),
    ('schema_version', '1'), ('schema_token', gen_random_uuid()::text) ON CONFLICT DO NOTHING`;
  if (await current(driver)) {
    await driver.query(identity);
    return;
  }
  await driver.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(4242001)');
    for (const statement of STATEMENTS) await tx.query(statement);
    await tx.query(recordVersion);
    await tx.query(identity);
  });
}
