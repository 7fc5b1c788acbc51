import PgBoss from 'pg-boss';
import type { Driver, Queryable } from '../db/driver.js';
import { type BossDb, bossDb, inTransaction } from './boss-db.js';

// The workspace's job queue: pg-boss, kept in the workspace's own database (PGlite or Postgres)
// through our driver. Every process on one database shares the same jobs: a job is fetched by one
// worker (SKIP LOCKED), and a job whose process died stays `active` until it expires, then pg-boss'
// maintenance hands it out again. Jobs carry their whole state, so a worker keeps nothing between
// them.

export interface JobQueueOptions {
  /** how often an idle worker looks for jobs, in seconds; default 2 (pg-boss' least is 0.5) */
  pollSeconds?: number;
  /** how often expired jobs (their process died) are handed out again, in seconds; default 30 */
  maintenanceSeconds?: number;
  /** overrides every queue's expiry, in seconds (tests use 1-2 s to see a dead process' job resumed) */
  expireSeconds?: number;
}

export interface QueueSpec {
  name: string;
  /** how long a job may run before it counts as abandoned and is handed out again */
  expireSeconds: number;
  /** how often a job that threw (or expired) is tried again */
  retryLimit: number;
  retryDelaySeconds?: number;
  /** `short`: at most one job waiting in the queue (a recurring tick) */
  policy?: 'standard' | 'short';
  /**
   * the queue (defined before) that gets a copy of each job that failed for good: its retries
   * spent, or expired on its last try (its process died)
   */
  deadLetter?: string;
}

export interface SendOptions {
  /** the job is sent in this transaction: it exists exactly when the transaction commits */
  tx?: Queryable;
  /** not before this many seconds from now */
  startAfterSeconds?: number;
  singletonKey?: string;
  /** taken before the jobs of lower priority that wait in the queue (default 0) */
  priority?: number;
}

export type Job<T> = PgBoss.JobWithMetadata<T>;

/** What define sets of a queue, as pg-boss reads a queue back (its other columns aside). */
interface QueueSettings {
  name: string;
  policy: 'standard' | 'short';
  retryLimit: number;
  retryDelay: number;
  retryBackoff: boolean;
  expireInSeconds: number;
  deadLetter?: string;
}

/** True when the stored queue has every setting `wanted` gives (a dead letter queue only when given). */
function sameSettings(stored: QueueSettings | undefined, wanted: QueueSettings): boolean {
  return (
    stored !== undefined &&
    stored.policy === wanted.policy &&
    stored.retryLimit === wanted.retryLimit &&
    stored.retryDelay === wanted.retryDelay &&
    stored.retryBackoff === wanted.retryBackoff &&
    stored.expireInSeconds === wanted.expireInSeconds &&
    (wanted.deadLetter === undefined || stored.deadLetter === wanted.deadLetter)
  );
}

/** Where pg-boss keeps its tables: its own schema, or the workspace's when that is not `public`. */
function bossSchema(current: string): string {
  return current === 'public' ? 'pgboss' : current;
}

/** pg-boss' tables in a new PGlite cluster (schema `public`), made in the template it is copied from. */
export function jobQueueTablesSql(): string {
  return PgBoss.getConstructionPlans(bossSchema('public'));
}

// One queue per driver, so functions that only hold the driver (a button press) can reach it.
const queues = new WeakMap<Driver, JobQueue>();

// Jobs sent from this process, counted per queue name: a wake after a command with no job sent
// (every `execute` wakes the automation workers) then costs nothing, where it cost a fetch query.
const sent = new Map<string, number>();
const countSent = (name: string, n = 1) => sent.set(name, (sent.get(name) ?? 0) + n);

export class JobQueue {
  private readonly workers = new Map<string, string[]>();
  /** workers of this process running a job now (pg-boss worker ids) */
  private readonly busy = new Set<string>();
  /** the count of jobs sent per queue name when this queue last woke a worker for it */
  private readonly wokenAt = new Map<string, number>();
  /** the queues' settings as stored, read by the first define of this process */
  private stored: Promise<Map<string, QueueSettings>> | undefined;
  private stopped = false;

  private constructor(
    private readonly boss: PgBoss,
    private readonly db: BossDb,
    readonly schema: string,
    private readonly options: JobQueueOptions,
    private readonly log: (message: string, error?: unknown) => void,
  ) {}

  /** Creates or updates pg-boss' tables (once, safe when several processes start together) and starts it. */
  static async open(
    driver: Driver,
    options: JobQueueOptions = {},
    log: (message: string, error?: unknown) => void = () => {},
  ): Promise<JobQueue> {
    const { rows } = await driver.query<{ s: string }>('SELECT current_schema() AS s');
    const schema = bossSchema(rows[0]?.s ?? 'public');
    const db = bossDb(driver);
    const boss = new PgBoss({
      db,
      schema,
      // Our own ticks (scheduled syncs) are jobs; pg-boss' cron is not used.
      schedule: false,
      maintenanceIntervalSeconds: options.maintenanceSeconds ?? 30,
      ...(options.pollSeconds ? { pollingIntervalSeconds: options.pollSeconds } : {}),
    });
    boss.on('error', (error: unknown) => log('job queue', error));
    await boss.start();
    const queue = new JobQueue(boss, db, schema, options, log);
    queues.set(driver, queue);
    return queue;
  }

  /**
   * Creates the queue if missing and applies the settings given; answers its expiry in seconds.
   * A queue stored with these settings already is left alone: a start defines every queue it
   * uses, and on PGlite each create_queue is a PL/pgSQL call of 10-40 ms run on this thread (seven
   * queues for the app host, before the server listens). The stored settings are read once per
   * JobQueue: a change another process makes to them later is not seen here (defines run at a
   * start, which reads them afresh).
   */
  async define(spec: QueueSpec): Promise<number> {
    const settings: QueueSettings = {
      name: spec.name,
      policy: spec.policy ?? 'standard',
      retryLimit: spec.retryLimit,
      retryDelay: spec.retryDelaySeconds ?? 0,
      retryBackoff: false,
      expireInSeconds: this.options.expireSeconds ?? spec.expireSeconds,
      ...(spec.deadLetter ? { deadLetter: spec.deadLetter } : {}),
    };
    this.stored ??= this.boss
      .getQueues()
      .then((rows) => new Map((rows as unknown as QueueSettings[]).map((row) => [row.name, row])));
    const stored = await this.stored;
    if (!sameSettings(stored.get(spec.name), settings)) {
      await this.boss.createQueue(spec.name, settings);
      await this.boss.updateQueue(spec.name, settings);
      stored.set(spec.name, settings);
    }
    return settings.expireInSeconds;
  }

  /** Sends a job; returns its id (null when a `short` queue already has one waiting). */
  async send<T extends object>(name: string, data: T, options: SendOptions = {}): Promise<string | null> {
    countSent(name);
    return this.boss.send(name, data, {
      ...(options.tx ? { db: inTransaction(options.tx) } : {}),
      ...(options.startAfterSeconds ? { startAfter: Math.ceil(options.startAfterSeconds) } : {}),
      ...(options.singletonKey ? { singletonKey: options.singletonKey } : {}),
      ...(options.priority ? { priority: options.priority } : {}),
    });
  }

  /**
   * Runs `handler` for each job of the queue, `concurrency` at a time in this process. A handler
   * that resolves completes its job; one that throws fails it (tried again while its retries last).
   */
  async work<T>(name: string, concurrency: number, handler: (job: Job<T>) => Promise<void>): Promise<void> {
    const ids: string[] = [];
    for (let i = 0; i < concurrency; i++) {
      let id = '';
      id = await this.boss.work<T>(
        name,
        {
          batchSize: 1,
          includeMetadata: true,
          ...(this.options.pollSeconds ? { pollingIntervalSeconds: this.options.pollSeconds } : {}),
        },
        async ([job]) => {
          this.busy.add(id);
          // There may be more where this one came from: one more idle worker looks (a cascade
          // that stops at the first worker that finds nothing).
          if (job) this.wake(name, { always: true });
          try {
            if (job) await handler(job);
          } finally {
            this.busy.delete(id);
            // A pg-boss worker sleeps a poll interval after each job; told it worked, it looks
            // for the next one at once, so a backlog drains at full speed.
            if (!this.stopped) this.boss.notifyWorker(id);
          }
        },
      );
      ids.push(id);
    }
    this.workers.set(name, [...(this.workers.get(name) ?? []), ...ids]);
  }

  /**
   * One idle worker of the queue looks for a job now, instead of at its next poll, when a job of
   * the queue was sent from this process since the last wake (`always`: in any case, e.g. a
   * delayed job is due). Busy workers look anyway as soon as their job ends. Waking every worker
   * after every command cost a fetch query each: on PGlite, most of the queue's cost in a sync.
   */
  wake(name: string, options: { always?: boolean } = {}): void {
    if (this.stopped) return;
    const count = sent.get(name) ?? 0;
    if (!options.always && count === (this.wokenAt.get(name) ?? 0)) return;
    this.wokenAt.set(name, count);
    const idle = (this.workers.get(name) ?? []).find((id) => !this.busy.has(id));
    if (idle) this.boss.notifyWorker(idle);
  }

  /** True when the queue exists (a job sent to it is kept, worker or not). */
  async exists(name: string): Promise<boolean> {
    return (await this.boss.getQueue(name)) !== null;
  }

  /** True while this process takes jobs of the queue. */
  isWorking(name: string): boolean {
    return this.workers.has(name);
  }

  /** This process stops taking jobs of the queue (its running ones finish). */
  async unwork(name: string): Promise<void> {
    this.workers.delete(name);
    await this.boss.offWork(name).catch((e) => this.log('job queue', e));
  }

  /**
   * Stops the workers. Jobs still running are failed, so they are tried again at once by another
   * process (or this one when it starts again). `abandon` instead leaves them as a process that
   * dies does: `active` until they expire.
   */
  async stop(options: { abandon?: boolean } = {}): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (options.abandon) this.db.detach();
    await this.boss
      .stop({ graceful: !options.abandon, wait: true, close: false, timeout: 5000 })
      .catch((e) => this.log('job queue', e));
    this.db.detach();
  }

  get isStopped(): boolean {
    return this.stopped;
  }
}

/** The job queue opened on this driver (undefined before the workspace opened it). */
export function jobQueueOf(driver: Driver): JobQueue | undefined {
  return queues.get(driver);
}

// A sender for each pg-boss schema: never started, it only writes jobs through the transaction
// it is given, for code that holds a transaction but not the workspace (a command's effects).
const senders = new Map<string, PgBoss>();
const noDb: PgBoss.Db = {
  executeSql: () => Promise.reject(new Error('this sender only writes through a transaction')),
};

/** Sends jobs in `tx` (they exist exactly when it commits), without the JobQueue at hand. */
export async function sendInTransaction(tx: Queryable, name: string, data: object[]): Promise<void> {
  if (data.length === 0) return;
  countSent(name, data.length);
  const { rows } = await tx.query<{ s: string }>('SELECT current_schema() AS s');
  const schema = bossSchema(rows[0]?.s ?? 'public');
  let sender = senders.get(schema);
  if (!sender) {
    sender = new PgBoss({ db: noDb, schema });
    senders.set(schema, sender);
  }
  await sender.insert(
    data.map((d) => ({ name, data: d })),
    { db: inTransaction(tx) },
  );
}
