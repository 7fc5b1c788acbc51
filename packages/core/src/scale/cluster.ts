import { randomBytes } from 'node:crypto';
import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import type { AppDefinition } from '../define/app.js';
import { type RunningApp, type StartOptions, startServer } from '../router/create-server.js';

/** Options of {@link startCluster}: those of `startServer`, plus the number of workers. */
export interface ClusterOptions extends StartOptions {
  /** Worker processes; default `WEFT_WORKERS`, else one per core (`os.availableParallelism()`). */
  workers?: number;
}

/** The primary process of a cluster. */
export interface ClusterPrimary {
  workers: number;
  /** Sends SIGTERM to every worker and resolves when all have finished their requests and exited. */
  close(): Promise<void>;
}

/**
 * Runs one app on every core with `node:cluster`: the primary forks workers that each run
 * `startServer` on the same port (the kernel spreads connections over them), restarts a worker
 * that dies, and on SIGTERM/SIGINT stops them all gracefully. Page cursors resume on any
 * worker: without `WEFT_PAGE_KEYS` the primary makes one key for all its workers (replicas on
 * other machines still need a shared `WEFT_PAGE_KEYS`). A worker that cannot listen (busy port)
 * stops the whole cluster with status 1 instead of restarting forever.
 *
 * In a worker this returns the worker's `RunningApp`; in the primary, a `ClusterPrimary`.
 *
 * @example
 * // main.ts
 * await startCluster(myApp, { defaultPort: 3000 });
 */
export async function startCluster(
  definition: AppDefinition<any, any, any, any>,
  options: ClusterOptions = {},
): Promise<RunningApp | ClusterPrimary> {
  if (!cluster.isPrimary) return startServer(definition, { ...options, announce: false });

  const envWorkers = Number(process.env.WEFT_WORKERS);
  const count = Math.max(
    1,
    options.workers ?? (Number.isInteger(envWorkers) && envWorkers > 0 ? envWorkers : availableParallelism()),
  );
  const env: Record<string, string> = {};
  if (!options.pageKeys && !process.env.WEFT_PAGE_KEYS) {
    env.WEFT_PAGE_KEYS = randomBytes(32).toString('base64url');
    process.stderr.write(
      `${definition.name}: WEFT_PAGE_KEYS is not set; the ${count} workers share a key made at start-up (replicas elsewhere cannot resume their cursors)\n`,
    );
  }
  let stopping = false;
  let listening = 0;
  const everListened = new WeakSet<Worker>();
  const exits: Promise<void>[] = [];
  const fork = () => {
    const worker = cluster.fork(env);
    exits.push(
      new Promise<void>((resolve) => {
        worker.once('exit', (code, signal) => {
          resolve();
          if (stopping) return;
          if (!everListened.has(worker)) {
            // It never served: a restart would fail the same way (busy port, bad configuration).
            process.stderr.write(
              `${definition.name}: a worker could not start (exit ${code ?? signal}); stopping\n`,
            );
            stopping = true;
            for (const other of Object.values(cluster.workers ?? {})) other?.process.kill('SIGTERM');
            process.exitCode = 1;
            return;
          }
          process.stderr.write(
            `${definition.name}: worker ${worker.process.pid} exited (${code ?? signal}); restarting\n`,
          );
          fork();
        });
      }),
    );
    worker.once('listening', (address) => {
      everListened.add(worker);
      listening += 1;
      if (listening === count && (options.announce ?? true)) {
        const host =
          address.address && !['0.0.0.0', '::'].includes(address.address) ? address.address : 'localhost';
        console.log(`${definition.name} listening on http://${host}:${address.port} with ${count} workers`);
      }
    });
  };
  for (let i = 0; i < count; i += 1) fork();

  const close = async () => {
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    await Promise.all(exits);
  };
  const onSignal = () => {
    void close().then(() => process.exit(process.exitCode ?? 0));
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  return { workers: count, close };
}
