import type { Queryable } from '../db/driver.js';
import type { KeptFields } from './kept-fields.js';
import type { RunRow } from './source-store.js';

// What a sync run's start job decides once and every later job reads: the app's schema answer,
// the types and reverse-field names the rows are mapped with, the fingerprint stored when the run
// succeeds. It lives in a row of its own (weft_host_run_plans), written once, so that a page's
// record rewrites only the run's small progress (where the page is, per type), never the schema:
// an app's schema answer runs to tens of kB, and the page record is the one statement per page.
// Runs started by a weft older than this table kept the plan inside their progress; such a run,
// taken over after an upgrade, is read from there.

type Json = Record<string, unknown>;

export interface RunPlan {
  /** the app's schema answer, read once by the start job (every page maps its rows with it) */
  schema: unknown;
  /** the types of this run, as the source had them when it started (absent in runs of an old weft: the source's) */
  typeIds?: string[];
  /** reverse field names that existed when the run started, by relation id (see mapSchema) */
  partners?: Record<string, string>;
  /** fields the workspace has in another shape than the app's schema asks, which keep theirs (kept-fields.ts) */
  kept?: KeptFields;
  /** what the app offered when the run started (schema-fingerprint.ts): the source's once it succeeds */
  fingerprint?: string;
}

/** Stores the plan of a run (in the start job's transaction; once per run). */
export async function savePlan(tx: Queryable, runId: string, plan: RunPlan): Promise<void> {
  await tx.query(
    `INSERT INTO weft_host_run_plans (run_id, plan) VALUES ($1, $2) ON CONFLICT (run_id) DO NOTHING`,
    [runId, JSON.stringify(plan)],
  );
}

/** The plan of a run: undefined until its start job has recorded one. */
export async function loadPlan(q: Queryable, run: RunRow): Promise<RunPlan | undefined> {
  const { rows } = await q.query<{ plan: RunPlan }>(
    `SELECT plan FROM weft_host_run_plans WHERE run_id = $1`,
    [run.id],
  );
  return rows[0]?.plan ?? legacyPlan(run.progress);
}

/** The plan as an older weft kept it, inside the progress. */
function legacyPlan(progress: Json): RunPlan | undefined {
  if (progress.schema === undefined) return undefined;
  return {
    schema: progress.schema,
    ...(Array.isArray(progress.typeIds) ? { typeIds: progress.typeIds as string[] } : {}),
    ...(progress.partners ? { partners: progress.partners as Record<string, string> } : {}),
    ...(typeof progress.fingerprint === 'string' ? { fingerprint: progress.fingerprint } : {}),
  };
}
