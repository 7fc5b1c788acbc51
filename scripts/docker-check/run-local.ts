// Builds and starts an app by executing its Dockerfile's steps on this machine, in a clean
// temporary copy of the build context: for machines without a Docker engine.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { type Step, parseDockerfile } from './dockerfile.js';
import { contextFiles, parseDockerignore } from './dockerignore.js';
import { freePort, waitForDescriptor } from './probe.js';

export interface LocalCheckOptions {
  /** Repository root: the build context. */
  root: string;
  /** Path of the Dockerfile, relative to the root. */
  dockerfile: string;
  /** Keep the temporary copy (its path is printed). */
  keep?: boolean;
  /** Progress lines. */
  log?: (line: string) => void;
  /** Time limit of the app's start-up in ms; default 60,000. */
  startTimeoutMs?: number;
  /** How long the app may take to exit after SIGTERM, in ms; default 10,000, as `docker stop`. */
  stopTimeoutMs?: number;
}

export interface CheckResult {
  buildMs: number;
  startMs: number;
  /** The descriptor's `id`. */
  appId: string;
  notes: string[];
}

export async function checkLocally(options: LocalCheckOptions): Promise<CheckResult> {
  const log = options.log ?? (() => {});
  const steps = parseDockerfile(readFileSync(join(options.root, options.dockerfile), 'utf8'));
  const work = mkdtempSync(join(tmpdir(), 'weft-docker-check-'));
  const notes: string[] = [];
  const started = Date.now();
  let child: ChildProcess | undefined;
  try {
    const state = {
      imageRoot: undefined as string | undefined,
      cwd: work,
      env: {} as Record<string, string>,
    };
    let argv: string[] = [];
    for (const step of steps) {
      const note = await apply(step, state, work, options, log);
      if (note) notes.push(note);
      if (step.kind === 'cmd') argv = step.argv;
    }
    const buildMs = Date.now() - started;
    const port = await freePort();
    log(`start: ${argv.join(' ')} (PORT=${port})`);
    const startedAt = Date.now();
    child = spawn(argv[0]!, argv.slice(1), {
      cwd: state.cwd,
      env: { ...process.env, ...state.env, PORT: String(port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output: string[] = [];
    child.stdout!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    const descriptor = await waitForDescriptor(`http://127.0.0.1:${port}/`, {
      timeoutMs: options.startTimeoutMs ?? 60_000,
      exited,
      output: () => output.join(''),
    });
    const startMs = Date.now() - startedAt;
    // A graceful stop, as `docker stop` does it: SIGTERM, and the app should exit 0.
    child.kill('SIGTERM');
    const stopLimit = options.stopTimeoutMs ?? 10_000;
    const stopped = exitWithin(exited, stopLimit);
    log(`stop: SIGTERM, waiting up to ${stopLimit / 1000} s for exit 0`);
    const code = await stopped;
    if (code !== 0)
      throw new Error(`the app did not exit cleanly on SIGTERM (exit ${code})\n${tail(output.join(''))}`);
    return { buildMs, startMs, appId: descriptor.id, notes };
  } finally {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    if (options.keep) log(`kept the build in ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
}

async function apply(
  step: Step,
  state: { imageRoot: string | undefined; cwd: string; env: Record<string, string> },
  work: string,
  options: LocalCheckOptions,
  log: (line: string) => void,
): Promise<string | undefined> {
  switch (step.kind) {
    case 'from': {
      const major = /^node:(\d+)/.exec(step.image)?.[1];
      if (!major) throw new Error(`FROM ${step.image}: the check can only stand in for node images`);
      const here = process.versions.node.split('.')[0];
      return major === here
        ? undefined
        : `FROM ${step.image}, but this machine runs Node ${process.versions.node}`;
    }
    case 'workdir': {
      // The first WORKDIR is the image's root of the copy; later ones must lie under it.
      state.imageRoot ??= step.path;
      const rel = posix.relative(state.imageRoot, step.path);
      if (rel.startsWith('..')) throw new Error(`WORKDIR ${step.path} is outside ${state.imageRoot}`);
      state.cwd = join(work, rel);
      mkdirSync(state.cwd, { recursive: true });
      return undefined;
    }
    case 'copy': {
      if (step.src !== '.')
        throw new Error(`COPY ${step.src}: the check copies the whole context only (COPY . <dest>)`);
      const dest = join(state.cwd, step.dest);
      const ignore = parseDockerignore(readText(join(options.root, '.dockerignore')));
      const files = contextFiles(options.root, ignore);
      // Asynchronous: several apps are checked at once in one process, and a copy that held the
      // event loop would stall the others' start-up polls and exit waits.
      for (const file of files) {
        const target = join(dest, file);
        await mkdir(dirname(target), { recursive: true });
        await copyFile(join(options.root, file), target);
      }
      log(`copy: ${files.length} files of the build context`);
      return undefined;
    }
    case 'env':
      Object.assign(state.env, step.vars);
      return undefined;
    case 'run': {
      log(`run: ${step.command}`);
      await run(step.command, state.cwd, { ...process.env, ...state.env });
      return undefined;
    }
    case 'expose':
    case 'cmd':
      return undefined;
    case 'user':
      return `USER ${step.user} is not emulated (the check runs as ${process.env.USER ?? 'the current user'})`;
  }
}

function run(command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', command], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const output: string[] = [];
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`RUN ${command} exited ${code}\n${tail(output.join(''))}`));
    });
  });
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

export function tail(text: string, lines = 20): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

/**
 * The exit code, or 'timeout' when the process has not exited within `ms`. A busy event loop runs
 * an expired timer before it hears of an exit that came in time, so the verdict waits one more
 * turn of the loop.
 */
async function exitWithin(exited: Promise<number | null>, ms: number): Promise<number | null | 'timeout'> {
  const first = await Promise.race([exited, sleep(ms).then(() => 'timeout' as const)]);
  if (first !== 'timeout') return first;
  await new Promise((resolve) => setImmediate(resolve));
  return Promise.race([exited, 'timeout' as const]);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
