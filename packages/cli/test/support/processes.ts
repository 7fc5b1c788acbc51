// Child processes for the CLI tests: commands that must succeed, and servers read until they
// print their URL.
import { type ChildProcess, spawn } from 'node:child_process';

/** The environment without the package manager's own variables (npm_*, INIT_CWD), as in a fresh shell. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(npm_|pnpm_|INIT_CWD$|VITEST|WEFT_)/i.test(key)) env[key] = value;
  }
  return { ...env, ...extra };
}

export interface Finished {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs a command to its end; never throws on a non-zero exit (the caller asserts). */
export function exec(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<Finished> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? cleanEnv() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout, stderr, ms: Date.now() - started });
    });
  });
}

export interface Server {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts a long-running command and resolves once its output shows an http:// URL. */
export function startServer(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<Server> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? cleanEnv() });
    let output = '';
    const stop = () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null) return done();
        child.once('close', () => done());
        child.kill('SIGTERM');
      });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} printed no URL within 30 s:\n${output}`));
    }, 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /(http:\/\/[\w.:-]+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ url: match[1]!, child, stop });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} ${args.join(' ')} exited (${code}) before printing a URL:\n${output}`));
    });
  });
}
