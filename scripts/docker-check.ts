// Checks that every app's Dockerfile builds and that the built app answers `GET /`:
//   tsx scripts/docker-check.ts [--mode auto|docker|local] [--concurrency N] [--keep] [app ...]
// With a Docker engine (`--mode docker`, or `auto` when one answers) it builds and runs the
// image; without one (`local`) it executes the same Dockerfile steps in a clean temporary copy.
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { checkWithDocker, dockerAvailable } from './docker-check/run-docker.js';
import { type CheckResult, checkLocally } from './docker-check/run-local.js';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Every app under apps/ that has a Dockerfile. */
export function appsWithDockerfile(root = ROOT): string[] {
  return readdirSync(join(root, 'apps'))
    .filter((name) => existsSync(join(root, 'apps', name, 'Dockerfile')))
    .sort();
}

export interface RunOptions {
  mode?: 'auto' | 'docker' | 'local';
  keep?: boolean;
  root?: string;
  log?: (line: string) => void;
}

export async function dockerCheck(
  app: string,
  options: RunOptions = {},
): Promise<CheckResult & { app: string; mode: 'docker' | 'local' }> {
  const root = options.root ?? ROOT;
  const dockerfile = `apps/${app}/Dockerfile`;
  if (!existsSync(join(root, dockerfile))) throw new Error(`${dockerfile} does not exist`);
  const mode =
    options.mode === 'auto' || !options.mode ? (dockerAvailable() ? 'docker' : 'local') : options.mode;
  const log = (line: string) => options.log?.(`${app}: ${line}`);
  const result =
    mode === 'docker'
      ? await checkWithDocker({ root, dockerfile, tag: `weft-check-${app}`, log })
      : await checkLocally({ root, dockerfile, log, ...(options.keep ? { keep: true } : {}) });
  return { ...result, app, mode };
}

export type AppResult = Awaited<ReturnType<typeof dockerCheck>>;

/**
 * Checks several apps, `concurrency` at a time (the steps mostly wait on npm and start-up, so
 * running a few together saves time without crowding the CPU). Never rejects: each app's
 * outcome is its result or its error.
 */
export async function dockerCheckAll(
  apps: string[],
  options: RunOptions & { concurrency?: number } = {},
): Promise<{ app: string; result?: AppResult; error?: Error }[]> {
  const outcomes: { app: string; result?: AppResult; error?: Error }[] = apps.map((app) => ({ app }));
  let next = 0;
  const worker = async () => {
    while (next < apps.length) {
      const outcome = outcomes[next++]!;
      try {
        outcome.result = await dockerCheck(outcome.app, options);
      } catch (error) {
        outcome.error = error as Error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 2) }, worker));
  return outcomes;
}

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      mode: { type: 'string', default: 'auto' },
      keep: { type: 'boolean', default: false },
      concurrency: { type: 'string', default: '2' },
    },
  });
  const mode = values.mode;
  if (mode !== 'auto' && mode !== 'docker' && mode !== 'local') {
    console.error('--mode is auto, docker or local');
    process.exit(2);
  }
  const apps = positionals.length > 0 ? positionals : appsWithDockerfile();
  const outcomes = await dockerCheckAll(apps, {
    mode,
    keep: values.keep,
    concurrency: Number(values.concurrency) || 2,
    log: (line) => console.error(`  ${line}`),
  });
  let failed = 0;
  for (const { app, result: r, error } of outcomes) {
    if (!r) {
      failed++;
      console.log(`docker-check ${app}: FAILED\n${error?.message}`);
      continue;
    }
    const notes = r.notes.length > 0 ? ` [${r.notes.join('; ')}]` : '';
    console.log(
      `docker-check ${app}: ok (${r.mode}; built in ${(r.buildMs / 1000).toFixed(1)} s, ` +
        `GET / answered "${r.appId}" ${(r.startMs / 1000).toFixed(1)} s after start)${notes}`,
    );
  }
  process.exit(failed > 0 ? 1 : 0);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
