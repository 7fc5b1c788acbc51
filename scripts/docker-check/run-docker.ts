// Builds the image with a real Docker engine, runs it, and checks that it answers `GET /`.
import { execFile, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseDockerfile } from './dockerfile.js';
import { waitForDescriptor } from './probe.js';
import type { CheckResult } from './run-local.js';

const exec = promisify(execFile);

/** True when a `docker` CLI is installed and its engine answers. */
export function dockerAvailable(): boolean {
  const result = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], {
    stdio: 'ignore',
    timeout: 15_000,
  });
  return result.status === 0;
}

export interface DockerCheckOptions {
  root: string;
  dockerfile: string;
  /** Image tag, e.g. `weft-check-bookshelf`. */
  tag: string;
  log?: (line: string) => void;
  startTimeoutMs?: number;
}

export async function checkWithDocker(options: DockerCheckOptions): Promise<CheckResult> {
  const log = options.log ?? (() => {});
  const steps = parseDockerfile(readFileSync(join(options.root, options.dockerfile), 'utf8'));
  const port = steps.find((s) => s.kind === 'expose')?.port ?? 8080;
  const started = Date.now();
  log(`docker build -f ${options.dockerfile} -t ${options.tag} .`);
  await exec('docker', ['build', '-f', options.dockerfile, '-t', options.tag, '.'], {
    cwd: options.root,
    maxBuffer: 64 * 1024 * 1024,
  });
  const buildMs = Date.now() - started;
  const { stdout } = await exec('docker', ['run', '-d', '-p', `127.0.0.1::${port}`, options.tag]);
  const container = stdout.trim();
  try {
    const mapped = (await exec('docker', ['port', container, `${port}/tcp`])).stdout.trim().split('\n')[0]!;
    const hostPort = mapped.slice(mapped.lastIndexOf(':') + 1);
    const startedAt = Date.now();
    const descriptor = await waitForDescriptor(`http://127.0.0.1:${hostPort}/`, {
      timeoutMs: options.startTimeoutMs ?? 60_000,
    });
    const startMs = Date.now() - startedAt;
    await exec('docker', ['stop', '--time', '10', container]);
    const { stdout: code } = await exec('docker', ['inspect', '--format', '{{.State.ExitCode}}', container]);
    if (code.trim() !== '0')
      throw new Error(`the container did not exit cleanly on SIGTERM (exit ${code.trim()})`);
    return { buildMs, startMs, appId: descriptor.id, notes: [] };
  } finally {
    await exec('docker', ['rm', '-f', container]).catch(() => {});
  }
}
