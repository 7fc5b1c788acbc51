import { randomUUID } from 'node:crypto';
import type { Driver, Queryable } from '../db/driver.js';
import { LEASE_COLUMNS } from './host-ddl.js';

// Sync runs are leased. A process that starts a run, or runs one of its jobs, renews the run's
// lease (lease_owner, lease_until in weft_host_runs, so every process on one database sees it)
// until the run ends. A run still `running` whose lease lapsed was left by a process that stopped
// (Ctrl-C, SIGKILL, a crash): the next sync of its source fails it and starts, rather than being
// refused for as long as the dead process' jobs take to expire. `weft dev` leases for seconds; a
// shared server longer, so a process under load never loses a run it is still reading.

/** The lease of a run on a server (`weft dev` passes a few seconds). */
export const DEFAULT_LEASE_SECONDS = 60;

/**
 * The lease of a workspace that one developer's process runs on its own data folder (`weft dev`,
 * `pnpm start`): a run left by a killed process blocks the next start for at most this long.
 */
export const LOCAL_LEASE_SECONDS = 5;

/** What a run whose lease lapsed is failed with. */
export const LAPSED_MESSAGE = 'The process running this sync stopped before it ended';

export async function createLeaseColumns(driver: Driver): Promise<void> {
  await driver.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(4242012)');
    for (const statement of LEASE_COLUMNS) await tx.query(statement);
  });
}

export class RunLeases {
  /** this process (this host) as a lease owner */
  readonly owner = randomUUID();
  private readonly held = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private renewing: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly driver: Driver,
    readonly seconds: number,
    private readonly log: (message: string, error?: unknown) => void,
  ) {}

  /** SQL for the lease expiry of a new or renewed run, given the seconds as parameter `$n`. */
  static until(param: string): string {
    return `clock_timestamp() + make_interval(secs => ${param})`;
  }

  /** This process keeps the run's lease until the run ends (renewed a few times per lease). */
  hold(runId: string): void {
    if (this.closed) return;
    this.held.add(runId);
    // A third of the lease: two renewals may be late before it lapses.
    this.timer ??= setInterval(() => this.renewSoon(), (this.seconds * 1000) / 3);
    this.timer.unref();
  }

  private renewSoon(): void {
    this.renewing ??= this.renew().finally(() => {
      this.renewing = undefined;
    });
  }

  private async renew(): Promise<void> {
    if (this.held.size === 0) return;
    try {
      const { rows } = await this.driver.query<{ id: string }>(
        `UPDATE weft_host_runs SET lease_owner = $1, lease_until = ${RunLeases.until('$2')}
          WHERE id = ANY($3::uuid[]) AND status = 'running' RETURNING id`,
        [this.owner, this.seconds, [...this.held]],
      );
      const live = new Set(rows.map((r) => r.id));
      // Ended (anywhere) or removed with its source: no longer held.
      for (const id of this.held) if (!live.has(id)) this.held.delete(id);
    } catch (error) {
      this.log('renewing the leases of sync runs', error);
    }
  }

  /**
   * Fails the source's runs whose lease lapsed (their process stopped), in the caller's
   * transaction. A run of this process is never taken for lapsed: it is alive, only late.
   * Returns how many were failed.
   */
  async failLapsed(tx: Queryable, sourceId: string): Promise<number> {
    const { rows } = await tx.query(
      `UPDATE weft_host_runs SET status = 'failed', finished_at = clock_timestamp(),
         duration_ms = (extract(epoch FROM clock_timestamp() - started_at) * 1000)::int, error = $3
       WHERE source_id = $1 AND status = 'running' AND kind <> 'webhook'
         AND lease_owner IS DISTINCT FROM $2 AND (lease_until IS NULL OR lease_until < clock_timestamp())
       RETURNING id`,
      [sourceId, this.owner, LAPSED_MESSAGE],
    );
    return rows.length;
  }

  /** SQL true for a running run `alias` whose lease holds (its process lives), given this owner as `$n`. */
  static liveSql(alias: string, ownerParam: string): string {
    return `(${alias}.lease_owner = ${ownerParam} OR ${alias}.lease_until >= clock_timestamp())`;
  }

  /**
   * This process stops: the leases it holds end now, so the next sync (here after a restart, or
   * in another process) need not wait for them to lapse. A run whose jobs another process takes
   * over is leased again by that process.
   */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.renewing;
    this.held.clear();
    await this.driver
      .query(
        `UPDATE weft_host_runs SET lease_until = clock_timestamp() WHERE lease_owner = $1 AND status = 'running'`,
        [this.owner],
      )
      .catch((error) => this.log('ending the leases of sync runs', error));
  }
}
