import type { Driver } from '../db/driver.js';
import { PollingLoop } from '../db/polling-loop.js';
import { runAppAction } from './app-action.js';
import { currentUser, loadPrincipal } from './current-user.js';
import { fillTemplate, loadEntities, scriptEntity } from './entity-shapes.js';
import { runScript } from './script-runner.js';
import { scriptServices } from './script-services.js';
import { getAutomation } from './store.js';

// Runs queued automation runs. A run is claimed with FOR UPDATE SKIP LOCKED and a lease (its
// next_at moves forward while it runs): another process picks it up only when the lease expired,
// i.e. the process running it died. A run is given up after MAX_ATTEMPTS such claims.

export interface AutomationWorkerOptions {
  /** how often due runs are looked for (ms); default 250 */
  pollMs?: number;
  /** how long a claimed run is hidden from other workers (ms); default 120 s */
  leaseMs?: number;
  /** default time limit of a script (ms); default 5,000 */
  scriptTimeoutMs?: number;
  /** time limit of one app call (ms); default 60,000 */
  appTimeoutMs?: number;
}

const MAX_ATTEMPTS = 3;

interface Claimed {
  id: string;
  automation_id: string;
  entity_ids: string[];
  user_id: string | null;
  attempts: number;
}

type Outcome = { ok: boolean; message: string | null; answer: unknown; console?: string | null };

export class AutomationWorker {
  private readonly loop: PollingLoop;
  /** aborted on stop: in-flight scripts are terminated, app calls cancelled */
  private readonly abort = new AbortController();
  private readonly leaseMs: number;
  private readonly scriptTimeoutMs: number;
  private readonly appTimeoutMs: number;

  constructor(
    private readonly driver: Driver,
    options: AutomationWorkerOptions,
    private readonly log: (message: string, error?: unknown) => void,
  ) {
    this.loop = new PollingLoop(
      () => this.drain(),
      options.pollMs ?? 250,
      (error) => this.log('automation run failed', error),
    );
    this.leaseMs = options.leaseMs ?? 120_000;
    this.scriptTimeoutMs = options.scriptTimeoutMs ?? 5_000;
    this.appTimeoutMs = options.appTimeoutMs ?? 60_000;
  }

  start(): this {
    this.loop.start();
    return this;
  }

  wake(): void {
    this.loop.wake();
  }

  async stop(): Promise<void> {
    // What was running stays claimed: its lease expires and another process runs it again.
    await this.loop.stop(() => this.abort.abort());
  }

  private async drain(): Promise<void> {
    for (;;) {
      if (this.loop.isStopped) return;
      const { rows } = await this.driver.query<Claimed>(
        `UPDATE weft_automation_runs SET state = 'running', attempts = attempts + 1, started_at = clock_timestamp(),
           next_at = clock_timestamp() + make_interval(secs => $1::float8 / 1000)
         WHERE id IN (SELECT id FROM weft_automation_runs WHERE state IN ('queued', 'running')
           AND next_at <= clock_timestamp() ORDER BY id LIMIT 4 FOR UPDATE SKIP LOCKED)
         RETURNING id::text, automation_id, entity_ids::text[] AS entity_ids, user_id, attempts`,
        [this.leaseMs],
      );
      if (rows.length === 0) return;
      await Promise.all(rows.map((r) => this.runOne(r)));
    }
  }

  private async runOne(run: Claimed): Promise<void> {
    let outcome: Outcome;
    if (run.attempts > MAX_ATTEMPTS) {
      outcome = { ok: false, message: 'The run was interrupted too often and was given up', answer: null };
    } else {
      try {
        outcome = await this.perform(run);
      } catch (error) {
        outcome = {
          ok: false,
          message: error instanceof Error ? error.message : 'The run failed',
          answer: null,
        };
      }
    }
    if (this.loop.isStopped) return;
    await this.driver.query(
      `UPDATE weft_automation_runs SET state = $2, message = $3, answer = $4::jsonb, console = $5,
         finished_at = clock_timestamp() WHERE id = $1::bigint`,
      [
        run.id,
        outcome.ok ? 'done' : 'failed',
        outcome.message,
        JSON.stringify(outcome.answer ?? null),
        outcome.console || null,
      ],
    );
  }

  private async perform(run: Claimed): Promise<Outcome> {
    const automation = await getAutomation(this.driver, run.automation_id);
    if (!automation) return { ok: false, message: 'The automation was deleted', answer: null };
    const user = (await loadPrincipal(this.driver, run.user_id)) ?? { id: run.user_id ?? '', admin: false };
    const { catalog, type, rows } = await loadEntities(this.driver, user, automation.type, run.entity_ids);
    if (rows.length === 0) return { ok: false, message: 'The entities no longer exist', answer: null };
    const action = automation.action;
    if (action.kind === 'app') {
      // One call per entity, as the service runs an action once per triggering entity.
      const answers: unknown[] = [];
      for (const row of rows) {
        const args = Object.fromEntries(
          Object.entries(action.args).map(([k, t]) => [k, fillTemplate(t, catalog, type, row)]),
        );
        const result = await runAppAction(
          action.url,
          action.action,
          args,
          action.account,
          this.appTimeoutMs,
          this.abort.signal,
        );
        answers.push(result.answer);
        if (!result.ok)
          return { ok: false, message: result.message, answer: answers.length === 1 ? answers[0] : answers };
      }
      return { ok: true, message: null, answer: answers.length === 1 ? answers[0] : answers };
    }
    const args = {
      currentUser: await currentUser(this.driver, run.user_id ? user : undefined),
      currentEntities: rows.map((row) => scriptEntity(catalog, type, row)),
    };
    const result = await runScript(
      action.code,
      args,
      scriptServices(this.driver, user),
      action.timeoutMs ?? this.scriptTimeoutMs,
      this.abort.signal,
    );
    return result.ok
      ? { ok: true, message: null, answer: result.result, console: result.console }
      : { ok: false, message: result.message, answer: null, console: result.console };
  }
}
