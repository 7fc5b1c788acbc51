// `weft dev` from this checkout (its fresh build, else its sources) as a child process, its output collected, for the CLI
// tests that meet it as a user does (real processes, real signals).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { entryArgs } from '../../../../scripts/test-support/checkout-node.js';
import { cleanEnv } from './processes.js';

const root = fileURLToPath(new URL('../../../..', import.meta.url));

export interface WeftDev {
  child: ChildProcess;
  out(): string;
  err(): string;
  exited: Promise<number | null>;
}

/**
 * Starts `weft dev <args>` as if run in `folder` (INIT_CWD), on a free port, without a rate
 * limit. `detached` gives it its own process group, as a terminal does, so that a signal to the
 * group reaches its app too.
 */
export function spawnWeftDev(
  args: string[],
  folder: string,
  options: { env?: Record<string, string>; detached?: boolean } = {},
): WeftDev {
  const child = spawn(process.execPath, [...entryArgs('cli', 'main'), 'dev', ...args], {
    cwd: join(root, 'packages/cli'),
    env: cleanEnv({ PORT: '0', WEFT_RATE_LIMIT: '0', INIT_CWD: folder, ...options.env }),
    detached: options.detached ?? false,
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, out: () => out, err: () => err, exited };
}

/**
 * The folders of a file of `weft dev` tests, removed after its tests: one for app modules, inside
 * packages/cli so that they resolve @weft/core like an app of this repository, and one the user
 * runs `weft dev` in (its `.weft` data folder).
 */
export function devFolders(name: string): { appFolder: string; userFolder: string } {
  const appFolder = mkdtempSync(join(root, `packages/cli/test/.${name}-`));
  const userFolder = mkdtempSync(join(tmpdir(), `weft-${name}-`));
  afterAll(() => {
    rmSync(appFolder, { recursive: true, force: true });
    rmSync(userFolder, { recursive: true, force: true });
  });
  return { appFolder, userFolder };
}
