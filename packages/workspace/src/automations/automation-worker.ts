import { OutboundPolicy } from '../outbound/index.js';
import type { Namespace } from '@weft/namespace';
import type { Driver } from '../db/driver.js';
import { runAnswerJson, runMessage } from '../host/run-record-limits.js';
import type { JobQueue, QueueSpec } from '../jobs/job-queue.js';
import { executeAction, validateActionAccount } from './app-action.js';
import { currentUser, loadPrincipal } from './current-user.js';
import { fillTemplate, loadEntities, scriptEntity } from './entity-shapes.js';
import { runScript } from './script-runner.js';
import { scriptServices } from './script-services.js';
import { AUTOMATION_RUN, type AutomationRunJob, getAutomation } from './store.js';

// Runs automation runs as jobs of the workspace's queue (pg-boss, in the workspace's database): a
// run is queued with the change (or button press) that triggered it, fetched by one worker of one
// process, and a run whose process died is handed out again when its job expires. The run row
// stays the record the page shows; a run is given up after MAX_ATTEMPTS starts.

export interface AutomationWorkerOptions {
  /** runs at once in this process; default 4 */
  concurrency?: number;
  /** how long a run may take before it counts as abandoned (its process died), in seconds; default 120 */
  expireSeconds?: number;
  /** default time limit of a script (ms); default 5,000 */
  scriptTimeoutMs?: number;
  /** time limit of one app call (ms); default 60,000 */
  appTimeoutMs?: number;
  /** where scripts' http service and addFileFromUrl may connect; default: anywhere but as the policy's defaults say */
  outbound?: OutboundPolicy;
  /** the word scripts use for the service's namespace (`context.getService('fibery')`); default svc */
  namespace?: Namespace;
  /** the workspace's address (once it listens), for the URLs scripts' `utils` make */
  publicUrl?: () => string | undefined;
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

/** The queue of automation runs (defined at every start, so its settings follow the code). */
export function automationRunQueue(expireSeconds = 120): QueueSpec {
  return { name: AUTOMATION_RUN, expireSeconds, retryLimit: MAX_ATTEMPTS, retryDelaySeconds: 1 };
}

export class AutomationWorker {
  /** aborted on stop: in-flight scripts are terminated, app calls cancelled */
  private readonly abort = new AbortController();
  private readonly scriptTimeoutMs: number;
  private readonly appTimeoutMs: number;
  private readonly outbound: OutboundPolicy;

  constructor(
    private readonly driver: Driver,
    private readonly jobs: JobQueue,
    private readonly options: AutomationWorkerOptions,
    private readonly log: (message: string, error?: unknown) => void,
  ) {
    this.scriptTimeoutMs = options.scriptTimeoutMs ?? 5_000;
    this.appTimeoutMs = options.appTimeoutMs ?? 60_000;
    this.outbound = options.outbound ?? new OutboundPolicy({ allowPrivateNetworks: true });
  }

  async start(): Promise<this> {
    await this.jobs.define(automationRunQueue(this.options.expireSeconds));
    await this.jobs.work<AutomationRunJob>(AUTOMATION_RUN, this.options.concurrency ?? 4, (job) =>
      this.runOne(job.data.runId),
    );
    return this;
  }

  /** Runs queued just now are fetched at once, not at the next poll. */
  wake(): void {
    this.jobs.wake(AUTOMATION_RUN);
  }

  async stop(): Promise<void> {
    // What was running is failed by the queue's stop and tried again (here after a restart, or elsewhere).
    this.abort.abort();
    await this.jobs.unwork(AUTOMATION_RUN);
  }

  private async runOne(runId: string): Promise<void> {
    const { rows } = await this.driver.query<Claimed>(
      `UPDATE weft_automation_runs SET state = 'running', attempts = attempts + 1, started_at = clock_timestamp()
       WHERE id = $1::bigint AND state IN ('queued', 'running')
       RETURNING id::text, automation_id, entity_ids::text[] AS entity_ids, user_id, attempts`,
      [runId],
    );
    const run = rows[0];
    // Done already (the job ran twice after its process died), or deleted with its automation.
    if (!run) return;
    let outcome: Outcome;
    if (run.attempts > MAX_ATTEMPTS) {
      outcome = { ok: false, message: 'The run was interrupted too often and was given up', answer: null };
      this.log(`automation run ${run.id} was interrupted ${MAX_ATTEMPTS} times and is given up`);
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
    // Stopping: the run is not recorded; its job is tried again.
    if (this.abort.signal.aborted) throw new Error('The workspace is stopping');
    await this.driver.query(
      `UPDATE weft_automation_runs SET state = $2, message = $3, answer = $4::jsonb, console = $5,
         finished_at = clock_timestamp() WHERE id = $1::bigint`,
      [
        run.id,
        outcome.ok ? 'done' : 'failed',
        outcome.message === null ? null : runMessage(outcome.message),
        runAnswerJson(outcome.answer),
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
      // The account is validated once for the run, then the action is called once per entity, as
      // the service runs an action once per triggering entity.
      const checked = await validateActionAccount(
        action.url,
        action.account,
        this.appTimeoutMs,
        this.abort.signal,
      );
      if ('refused' in checked) return checked.refused;
      const answers: unknown[] = [];
      for (const row of rows) {
        const args = Object.fromEntries(
          Object.entries(action.args).map(([k, t]) => [k, fillTemplate(t, catalog, type, row)]),
        );
        const result = await executeAction(
          action.url,
          action.action,
          args,
          checked.account,
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
      currentUser: await currentUser(this.driver, run.user_id ? user : undefined, this.options.namespace),
      currentEntities: rows.map((row) => scriptEntity(catalog, type, row)),
    };
    const result = await runScript(
      action.code,
      args,
      scriptServices(
        this.driver,
        user,
        this.outbound,
        this.options.namespace,
        this.options.publicUrl?.() ?? '',
      ),
      action.timeoutMs ?? this.scriptTimeoutMs,
      this.abort.signal,
    );
    return result.ok
      ? { ok: true, message: null, answer: result.result, console: result.console }
      : { ok: false, message: result.message, answer: null, console: result.console };
  }
}
