// The embedded database as the app's `Database`, served by a worker thread (pglite-worker.ts).
// PGlite runs Postgres in WebAssembly on the thread that opened it, and Postgres's statement timer
// cannot fire there while a statement runs: in the app's own thread an expensive query would hold
// every request until it ended. In a worker the app's thread stays free, and the user's query
// gets its time limit here instead: when a statement of a `readOnly` run with `timeoutMs` passes
// it, the worker is terminated, the statement fails as Postgres's own timeout does (57014), and
// the cluster is opened again from its directory in a new worker. The user's query only reads,
// and a committed write is in the cluster's write-ahead log, which the new worker replays.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Database, QueryResult, Queryable, ReadOnlyOptions } from './database.js';
import type { WorkerReply, WorkerRequest } from './pglite-worker.js';

const WORKER_SCRIPT = new URL('./pglite-worker.ts', import.meta.url).href;
/** tsx's loader API by absolute URL, so the worker can load the app's TypeScript wherever it runs. */
const TSX_API = pathToFileURL(
  join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/esm/api/index.mjs'),
).href;
/**
 * The worker's first code: a worker does not apply the `--import tsx` hooks of its parent's
 * command line to its own entry module, so it registers tsx and then imports the TypeScript.
 */
const BOOT = `const { workerData } = require('node:worker_threads');
import(workerData.tsx).then(({ register }) => { register(); return import(workerData.script); });`;

export interface WorkerDatabase extends Database {
  /** Runs a script of several statements (the demo's seed). */
  exec(sql: string): Promise<void>;
  /** How many workers have been started (1 + restarts after a query over its limit). */
  readonly generation: number;
}

/** The error a statement over its limit fails with: Postgres's own, so callers treat both engines alike. */
export class StatementTimeoutError extends Error {
  readonly code = '57014';
  constructor() {
    super('canceling statement due to statement timeout');
  }
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** One worker and its cluster session. */
class Session {
  readonly ready: Promise<void>;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private ended: Error | null = null;

  constructor(private readonly worker: Worker) {
    this.ready = new Promise<void>((resolve, reject) => {
      worker.on('message', (reply: WorkerReply) => {
        if (reply.id === -1) {
          if (reply.ok) resolve();
          else reject(Object.assign(new Error(reply.error.message), reply.error));
          return;
        }
        const waiting = this.pending.get(reply.id);
        if (!waiting) return;
        this.pending.delete(reply.id);
        if (reply.ok) waiting.resolve(reply.result);
        else waiting.reject(Object.assign(new Error(reply.error.message), reply.error));
      });
      const fail = (error: Error) => {
        this.end(error);
        reject(error);
      };
      worker.on('error', fail);
      worker.on('exit', (code) => fail(new Error(`the embedded database stopped (exit ${code})`)));
    });
    // Awaited by every request; a start that fails is reported to them, not as an unhandled rejection.
    this.ready.catch(() => {});
  }

  async send(op: WorkerRequest['op'], sql: string, params?: unknown[], timeoutMs?: number): Promise<unknown> {
    await this.ready;
    if (this.ended) throw this.ended;
    const id = this.nextId++;
    const answer = new Promise<unknown>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    this.worker.postMessage({ id, op, sql, params } satisfies WorkerRequest);
    if (timeoutMs === undefined) return answer;
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.end(new StatementTimeoutError());
        void this.worker.terminate();
        reject(new StatementTimeoutError());
      }, timeoutMs);
    });
    try {
      return await Promise.race([answer, limit]);
    } finally {
      clearTimeout(timer);
    }
  }

  get alive(): boolean {
    return this.ended === null;
  }

  /** Fails every statement still waiting for an answer. */
  end(error: Error): void {
    if (this.ended) return;
    this.ended = error;
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }

  async close(): Promise<void> {
    if (this.alive) {
      await this.send('close', '').catch(() => {});
      this.end(new Error('the embedded database is closed'));
    }
    await this.worker.terminate();
  }
}

/** Opens the cluster in `dir` (created by `initCluster`) in a worker thread. */
export async function workerDatabase(dir: string): Promise<WorkerDatabase> {
  const start = () =>
    new Session(new Worker(BOOT, { eval: true, workerData: { dir, tsx: TSX_API, script: WORKER_SCRIPT } }));
  let session = start();
  let generation = 1;
  let closed = false;
  await session.ready;

  /** The current session, started again if the last one was ended by a time limit. */
  const current = (): Session => {
    if (closed) throw new Error('the embedded database is closed');
    if (!session.alive) {
      session = start();
      generation += 1;
    }
    return session;
  };

  // One session, one transaction at a time: statements outside `readOnly` wait while one is open.
  let queue: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn, fn);
    queue = run.catch(() => {});
    return run;
  };

  const queryable = (s: () => Session, timeoutMs?: number): Queryable => ({
    async query<R>(sql: string, params: unknown[] = []) {
      return (await s().send('rows', sql, params, timeoutMs)) as QueryResult<R>;
    },
    async queryArrays(sql: string, params: unknown[] = []) {
      return (await s().send('arrays', sql, params, timeoutMs)) as unknown[][];
    },
  });
  const outside = queryable(current);

  return {
    driver: 'pglite',
    get generation() {
      return generation;
    },
    query: (sql, params) => exclusive(() => outside.query(sql, params)),
    queryArrays: (sql, params) => exclusive(() => outside.queryArrays(sql, params)),
    exec: (sql) => exclusive(async () => void (await current().send('exec', sql))),
    readOnly<T>(fn: (q: Queryable) => Promise<T>, options: ReadOnlyOptions = {}) {
      return exclusive(async () => {
        const s = current();
        await s.send('rows', 'BEGIN TRANSACTION READ ONLY');
        try {
          return await fn(queryable(() => s, options.timeoutMs));
        } finally {
          // A session ended by the time limit took its transaction with it.
          if (s.alive) await s.send('rows', 'ROLLBACK').catch(() => {});
        }
      });
    },
    async close() {
      closed = true;
      await queue;
      await session.close();
    },
  };
}
