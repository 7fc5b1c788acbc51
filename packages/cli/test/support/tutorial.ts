// The shell commands of docs/first-app.md, in the order a reader types them, and a runner that
// types them: one-shot commands must exit 0, the ones that keep running (a server, `weft dev`) are
// started in their own process group and waited for until they say they are ready.
import { type ChildProcess, spawn } from 'node:child_process';
import { cleanEnv, exec, type Finished } from './processes.js';

export interface TutorialCommand {
  /** The command as printed, without its trailing comment. */
  line: string;
  /** The doc's heading above it (for failure messages). */
  step: string;
}

/**
 * Every command of every ```sh block, in order. `skipBlock` leaves out whole blocks (the
 * registry variant of step 1, which needs weft on the npm registry).
 */
export function tutorialCommands(doc: string, skipBlock: (block: string) => boolean): TutorialCommand[] {
  const commands: TutorialCommand[] = [];
  let step = '';
  const parts = doc.split(/^(```sh\n[\s\S]*?^```)$/m);
  for (const part of parts) {
    if (!part.startsWith('```sh')) {
      const headings = [...part.matchAll(/^#+ (.+)$/gm)];
      if (headings.length > 0) step = headings.at(-1)![1]!;
      continue;
    }
    const block = part.slice('```sh\n'.length, -'```'.length);
    if (skipBlock(block)) continue;
    for (const raw of block.split('\n')) {
      const line = raw.replace(/\s+#.*$/, '').trim();
      if (line && !line.startsWith('#')) commands.push({ line, step });
    }
  }
  return commands;
}

/** A command that keeps running, and what it prints once it is ready. */
export interface LongRunning {
  matches: RegExp;
  ready: RegExp;
  timeoutMs: number;
}

export interface Running {
  line: string;
  output(): string;
  stop(): Promise<void>;
}

export interface TutorialRun {
  /** Runs one command in the reader's current folder (a `cd` moves it). */
  run(command: TutorialCommand): Promise<Finished | Running>;
  cwd(): string;
  stopAll(): Promise<void>;
}

export function tutorialRunner(options: {
  cwd: string;
  longRunning: LongRunning[];
  /** Rewrites a line before it runs (e.g. the doc's `~/weft` to this checkout). */
  rewrite?: (line: string) => string;
  env?: Record<string, string>;
}): TutorialRun {
  let cwd = options.cwd;
  const running: Running[] = [];
  const env = cleanEnv(options.env);
  return {
    cwd: () => cwd,
    async run(command) {
      const line = options.rewrite ? options.rewrite(command.line) : command.line;
      const cd = /^cd (\S+)$/.exec(line);
      if (cd) {
        cwd = new URL(cd[1]!, `file://${cwd}/`).pathname.replace(/\/$/, '');
        return { code: 0, stdout: '', stderr: '', ms: 0 };
      }
      const long = options.longRunning.find((l) => l.matches.test(line));
      if (!long) return exec('sh', ['-c', line], { cwd, env, timeoutMs: 240_000 });
      const started = await startLong(line, cwd, env, long);
      running.push(started);
      return started;
    },
    async stopAll() {
      for (const r of running.reverse()) await r.stop();
    },
  };
}

function startLong(line: string, cwd: string, env: NodeJS.ProcessEnv, long: LongRunning): Promise<Running> {
  // detached: the command and everything it starts (npm → tsx → node) share one process group,
  // so stopping it stops them all.
  const child: ChildProcess = spawn('sh', ['-c', line], { cwd, env, detached: true });
  let output = '';
  const stop = () =>
    new Promise<void>((done) => {
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once('close', () => done());
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        done();
      }
      setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {}
      }, 10_000).unref();
    });
  const started: Running = { line, output: () => output, stop };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`\`${line}\` was not ready within ${long.timeoutMs / 1000} s:\n${output}`));
    }, long.timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (long.ready.test(output)) {
        clearTimeout(timer);
        resolve(started);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`\`${line}\` exited (${code}) before it was ready:\n${output}`));
    });
  });
}
