// Automations live in two tables of the workspace's own database. A run row is written in the same
// transaction as the change that triggered it, together with its job in the workspace's job queue
// (see automation-worker.ts): the row is the record, the job decides who runs it and when.
// An app action's account is sealed in account_enc (never in `action`); a script run keeps what
// the script wrote to its console, bounded, in `console`.
// The tables are made with the system tables (db/bootstrap.ts), once per version of either.

export const AUTOMATION_TABLES = `
CREATE TABLE IF NOT EXISTS weft_automations (id uuid PRIMARY KEY, name text NOT NULL,
  trigger text NOT NULL, type_name text NOT NULL, field text, action jsonb NOT NULL,
  enabled boolean NOT NULL DEFAULT true, created_at timestamptz NOT NULL DEFAULT now());
CREATE INDEX IF NOT EXISTS weft_automations_by_type ON weft_automations (type_name) WHERE enabled;
CREATE TABLE IF NOT EXISTS weft_automation_runs (id bigserial PRIMARY KEY,
  automation_id uuid NOT NULL REFERENCES weft_automations(id) ON DELETE CASCADE,
  entity_ids uuid[] NOT NULL, user_id uuid, state text NOT NULL DEFAULT 'queued',
  attempts int NOT NULL DEFAULT 0, next_at timestamptz NOT NULL DEFAULT now(),
  message text, answer jsonb, created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz, finished_at timestamptz);
CREATE INDEX IF NOT EXISTS weft_automation_runs_due ON weft_automation_runs (next_at)
  WHERE state IN ('queued', 'running');
ALTER TABLE weft_automations ADD COLUMN IF NOT EXISTS account_enc text;
ALTER TABLE weft_automation_runs ADD COLUMN IF NOT EXISTS console text;
`;
