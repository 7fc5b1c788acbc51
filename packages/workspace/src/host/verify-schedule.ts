import type { Queryable } from '../db/driver.js';
import { VERIFY_SCHEDULE_COLUMN } from './host-ddl.js';
import { VERIFY_KIND } from './verify-run.js';

// Verify on a schedule (`verifyEverySeconds` of a source): the scheduler's tick also verifies the
// sources whose last verify is older than their interval, once they have synced, and never while
// a sync of theirs runs. The setting lives in a column of its own, added to the sources table here.

export async function createVerifySchedule(q: Queryable): Promise<void> {
  await q.query(VERIFY_SCHEDULE_COLUMN);
}

export async function setVerifyEvery(q: Queryable, sourceId: string, seconds: number | null): Promise<void> {
  await q.query(`UPDATE weft_host_sources SET verify_every_seconds = $2 WHERE id = $1`, [sourceId, seconds]);
}

/** Sources due a verify: an interval set, a sync succeeded, none running, no verify within the interval. */
export async function dueVerifies(q: Queryable): Promise<string[]> {
  const { rows } = await q.query<{ id: string }>(
    `SELECT s.id FROM weft_host_sources s
      WHERE s.verify_every_seconds IS NOT NULL
        AND EXISTS (SELECT 1 FROM weft_host_runs r WHERE r.source_id = s.id AND r.status = 'succeeded'
          AND r.kind NOT IN ('webhook', $1))
        AND NOT EXISTS (SELECT 1 FROM weft_host_runs r WHERE r.source_id = s.id AND r.status = 'running'
          AND r.kind <> 'webhook')
        AND NOT EXISTS (SELECT 1 FROM weft_host_runs r WHERE r.source_id = s.id AND r.kind = $1
          AND r.started_at > clock_timestamp() - make_interval(secs => s.verify_every_seconds))`,
    [VERIFY_KIND],
  );
  return rows.map((r) => r.id);
}
