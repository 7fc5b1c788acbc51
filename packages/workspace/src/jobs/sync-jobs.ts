import { AppCallError } from '@weft/sync-engine';
import {
  abandonRun,
  type DeadJob,
  type FinishJob,
  failRun,
  finishRun,
  type PageJob,
  runPage,
  SYNC_DEAD,
  SYNC_FINISH,
  SYNC_PAGE,
  SYNC_START,
  type StartJob,
  type SyncContext,
  runErrorMessage,
  startRun,
} from '../host/sync-run.js';
import type { Job, QueueSpec } from './job-queue.js';

// The app host's sync jobs on the workspace's queue. A job that throws is failed and tried again
// by pg-boss (after a process stop, or a database hiccup); an error that another try cannot mend
// (the app refused, the data is wrong, the retry budget is spent) fails the run instead, which
// keeps the rows written so far.

const DEFAULT_EXPIRE_SECONDS = 300;
const DEFAULT_RETRY_LIMIT = 5;

/** The sync's queues as registerSyncJobs defines them: the dead letters first, which the others name. */
export function syncQueueSpecs(
  options: Pick<SyncJobsOptions, 'expireSeconds' | 'retryLimit'> = {},
): QueueSpec[] {
  const expireSeconds = options.expireSeconds ?? DEFAULT_EXPIRE_SECONDS;
  const retryLimit = options.retryLimit ?? DEFAULT_RETRY_LIMIT;
  return [
    // Jobs that fail for good without their handler failing the run (their process died, or
    // stopped, on their last try) land here, so their run does not stay `running` for ever.
    { name: SYNC_DEAD, expireSeconds: 60, retryLimit: 3, retryDelaySeconds: 1 },
    ...[SYNC_START, SYNC_PAGE, SYNC_FINISH].map((name) => ({
      name,
      expireSeconds,
      retryLimit,
      retryDelaySeconds: 1,
      deadLetter: SYNC_DEAD,
    })),
  ];
}

export interface SyncJobsOptions {
  /** page jobs run at once in this process (types of a run are read concurrently); default 4 */
  concurrency?: number;
  /** how long a job may run before it counts as abandoned (its process died); default 300 s */
  expireSeconds?: number;
  /** how often a job that failed for a passing reason, or whose process died, is tried again; default 5 */
  retryLimit?: number;
  log: (message: string, error?: unknown) => void;
}

/** Worth another try of the same job: not an app's answer, not a data error. */
function transient(error: unknown): boolean {
  if (error instanceof AppCallError) return false;
  return !(error instanceof Error && /^(Stored account|Type |Field |commands\[)/.test(error.message));
}

/** The longest a page job goes on reading pages before it hands over to a job of its own. */
const PAGE_JOB_MS = 30_000;

export async function registerSyncJobs(
  base: Omit<SyncContext, 'pageJobMs'>,
  options: SyncJobsOptions,
): Promise<void> {
  // The expiry the store gave the last of them (the queue options may override every queue's).
  let expires = 0;
  for (const spec of syncQueueSpecs(options)) expires = await base.queue.define(spec);
  const concurrency = options.concurrency ?? 4;
  // A page job hands over long before it could count as abandoned (a quarter of its expiry).
  const ctx: SyncContext = {
    ...base,
    pageJobMs: Math.min(PAGE_JOB_MS, (expires * 1000) / 4),
  };

  const guarded =
    <T extends { runId: string }>(fn: (ctx: SyncContext, data: T) => Promise<void>) =>
    async (job: Job<T>) => {
      ctx.hold?.(job.data.runId);
      try {
        await fn(ctx, job.data);
      } catch (error) {
        // Stopping: the job is failed and tried again (by another process, or this one restarted).
        if (ctx.signal.aborted) throw error;
        if (transient(error) && job.retryCount < job.retryLimit) {
          options.log(
            `sync run ${job.data.runId}: ${await runErrorMessage(ctx, job.data.runId, error)} (tried again)`,
          );
          throw error;
        }
        options.log(
          `sync run ${job.data.runId} failed: ${await runErrorMessage(ctx, job.data.runId, error)}`,
        );
        await failRun(ctx, job.data.runId, error);
      }
    };
  await ctx.queue.work<StartJob>(SYNC_START, 1, guarded(startRun));
  await ctx.queue.work<PageJob>(SYNC_PAGE, concurrency, guarded(runPage));
  await ctx.queue.work<FinishJob>(SYNC_FINISH, 1, guarded(finishRun));
  const retryLimit = options.retryLimit ?? DEFAULT_RETRY_LIMIT;
  await ctx.queue.work<DeadJob>(SYNC_DEAD, 1, (job) => abandonRun(ctx, job.data, retryLimit + 1));
}
