// The app module that `weft dev` runs: started with tsx (and weft's own export conditions) on a
// fixed port (so its URL never changes), and restarted when a file of its folder changes. Changes
// are debounced (an editor's save is often several events), restarts never overlap (a change during
// a restart queues one more restart), and an app that fails to start is reported and tried again on
// the next change.
import { type ChildProcess, spawn } from 'node:child_process';
import { type FSWatcher, watch } from 'node:fs';
import { dirname } from 'node:path';
import type { CliIo } from '../io.js';

/** Changes that are not the app's code: dependencies, data folders, VCS, editor scratch files. */
const IGNORED =
  /(^|[\\/])(node_modules|\.weft|\.git|dist|coverage)([\\/]|$)|(^|[\\/])\.[^\\/]*$|~$|\.swp$|\.tmp$/;

export const RESTART_DEBOUNCE_MS = 200;

/**
 * Node's `--conditions` of this process, for the app's. In a weft checkout `weft` runs weft's
 * build under the `weft-dist` condition when the build is fresh; the app then resolves
 * `@weft/core` to the same build instead of having tsx compile core's sources at every start.
 * Elsewhere there are none (an installed weft runs its build without conditions).
 */
export function inheritedConditions(execArgv: readonly string[] = process.execArgv): string[] {
  const out: string[] = [];
  for (let i = 0; i < execArgv.length; i += 1) {
    const arg = execArgv[i]!;
    if (arg.startsWith('--conditions=')) out.push(arg);
    else if ((arg === '--conditions' || arg === '-C') && execArgv[i + 1] !== undefined)
      out.push(`--conditions=${execArgv[++i]}`);
  }
  return out;
}

async function waitForApp(url: string, child: ChildProcess, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`the app exited with status ${child.exitCode}`);
    // Stopped by weft dev itself (the data folder in use, Ctrl-C): no more waiting.
    if (child.signalCode !== null) throw new Error(`the app was stopped (${child.signalCode})`);
    try {
      const r = await fetch(`${url}/`, { signal: AbortSignal.timeout(1000) });
      if (r.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`the app did not answer on ${url} within ${ms / 1000} s`);
}

export class AppProcess {
  child: ChildProcess | undefined;
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private restarting: Promise<void> | undefined;
  private again = false;
  private closed = false;

  constructor(
    private readonly file: string,
    readonly port: number,
    private readonly io: CliIo,
    private readonly conditions: readonly string[] = inheritedConditions(),
  ) {}

  get url() {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const loader = import.meta.resolve('tsx');
    const child = spawn(process.execPath, [...this.conditions, '--import', loader, this.file], {
      env: { ...this.io.env, PORT: String(this.port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    this.child = child;
    child.stderr?.on('data', (chunk: Buffer) => this.io.stderr.write(chunk.toString()));
    await waitForApp(this.url, child);
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((done) => {
      child.once('exit', () => done());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 3000).unref();
    });
  }

  /** Restarts the app on changes in its folder; `onRestart` runs after each successful start. */
  watch(onRestart: () => Promise<void> | void): void {
    this.watcher = watch(dirname(this.file), { recursive: true }, (_event, name) => {
      if (name && IGNORED.test(String(name))) return;
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.restart(onRestart), RESTART_DEBOUNCE_MS);
    });
  }

  private restart(onRestart: () => Promise<void> | void): void {
    if (this.closed) return;
    if (this.restarting) {
      this.again = true;
      return;
    }
    this.restarting = (async () => {
      do {
        this.again = false;
        this.io.stdout.write('App files changed: restarting the app\n');
        await this.stop();
        try {
          await this.start();
          this.io.stdout.write(`App restarted on ${this.url}\n`);
          await onRestart();
        } catch (error) {
          if (!this.closed)
            this.io.stderr.write(
              `weft dev: ${(error as Error).message} (fix the app; it restarts on the next change)\n`,
            );
        }
      } while (this.again && !this.closed);
    })().finally(() => {
      this.restarting = undefined;
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.watcher?.close();
    clearTimeout(this.timer);
    await this.restarting;
    await this.stop();
  }
}
