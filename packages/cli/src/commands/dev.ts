// `weft dev <app module or URL>`: the local workspace playing the service towards one app. Starts
// the workspace (PGlite in .weft/, or DATABASE_URL), starts the app when given a module (again
// whenever its files change), registers it as a source, runs a first sync with a progress bar and
// keeps serving until Ctrl-C. After a restart the source is pointed at the app again and synced
// again, so a changed schema or data shows up without restarting weft dev. See docs/dev.md.
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import {
  configFromEnv,
  everyInterfaceNotice,
  type HostedWorkspace,
  startHostedWorkspace,
} from '@weft/workspace';
import type { WeftCommand } from '../command.js';
import { type CliIo, EXIT, UsageError } from '../io.js';
import { AppProcess } from './dev-app-process.js';
import { devSource } from './dev-source.js';
import { verifyOnce } from './dev-verify.js';

interface DevOptions {
  account?: string;
  auth?: string;
  types?: string;
  filter?: string;
  interval?: string;
  sync?: boolean;
  watch?: boolean;
  verify?: boolean;
}

function jsonArg(io: CliIo, name: string, value: string | undefined): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  const text = value.trim().startsWith('{') ? value : readFileSync(resolve(io.cwd, value), 'utf8');
  try {
    const parsed = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error();
    return parsed;
  } catch {
    throw new UsageError(`--${name} must be a JSON object or a file holding one`);
  }
}

const freePort = () =>
  new Promise<number>((done, fail) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => done(port));
    });
    s.once('error', fail);
  });

function progressBar(io: CliIo, types: string[]) {
  const state = new Map<string, { pages: number; done: boolean }>(
    types.map((t) => [t, { pages: 0, done: false }]),
  );
  let rows = 0;
  const width = 24;
  return {
    update(type: string, kind: string, totalRows: number) {
      const s = state.get(type);
      if (!s) return;
      if (kind === 'page') s.pages++;
      if (kind === 'done') s.done = true;
      rows = totalRows;
      const done = [...state.values()].filter((v) => v.done).length;
      const filled = Math.round((done / state.size) * width);
      const detail = [...state].map(([t, v]) => `${t} ${v.done ? '✓' : `p${v.pages}`}`).join(' · ');
      const line = `Syncing [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${rows} rows · ${detail}`;
      io.stdout.write(io.stdout.isTTY ? `\r${line}\u001b[K` : `${line}\n`);
    },
    end() {
      if (io.stdout.isTTY) io.stdout.write('\n');
    },
  };
}

/** Syncs the source again after a restart; a sync still running (cut off by the restart) is waited for. */
async function syncAgain(ws: HostedWorkspace, id: string, io: CliIo): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      const run = await ws.apps.sync(id, { wait: true });
      io.stdout.write(
        run.status === 'succeeded'
          ? `Synced again: ${run.rowsSet} rows (${run.rowsRemoved} removed)\n`
          : `Sync after the restart failed: ${run.error}\n`,
      );
      return;
    } catch (error) {
      if ((error as { status?: number }).status !== 409 || attempt >= 60) throw error;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

async function dev(target: string, options: DevOptions, io: CliIo): Promise<number> {
  const isUrl = /^https?:\/\//.test(target);
  const file = isUrl ? undefined : resolve(io.cwd, target);
  if (file && !existsSync(file)) throw new UsageError(`no such app module: ${target}`);
  const fields = jsonArg(io, 'account', options.account);
  const filter = jsonArg(io, 'filter', options.filter);
  const types = options.types
    ? options.types
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean)
    : undefined;
  const interval = options.interval === undefined ? undefined : Number(options.interval);
  if (interval !== undefined && (!Number.isInteger(interval) || interval < 10))
    throw new UsageError('--interval must be a whole number of seconds, 10 or more');

  const env = { ...io.env };
  if (!env.DATABASE_URL && !env.WEFT_DATA_DIR) env.WEFT_DATA_DIR = resolve(io.cwd, '.weft');
  const config = configFromEnv(env as NodeJS.ProcessEnv);
  const keyDir =
    env.WEFT_DATA_DIR && env.WEFT_DATA_DIR !== ':memory:'
      ? resolve(io.cwd, env.WEFT_DATA_DIR)
      : resolve(io.cwd, '.weft');

  let app: AppProcess | undefined;
  let appStarted: Promise<void> | undefined;
  if (file) {
    app = new AppProcess(file, Number(env.WEFT_APP_PORT) || (await freePort()), io);
    io.stdout.write(`Starting the app ${target}\n`);
    // The app starts while the workspace does: both take seconds. Its failure is reported below.
    appStarted = app.start();
    appStarted.catch(() => {});
  }
  const appUrl = app ? app.url : target;
  let ws: HostedWorkspace | undefined;
  try {
    ws = await startHostedWorkspace({ ...config, keyDir, log: (m) => io.stderr.write(`${m}\n`) });
    io.stdout.write(`Workspace listening on ${ws.url}\n`);
    const notice = everyInterfaceNotice(config.host);
    if (notice) io.stdout.write(`${notice}\n`);
    if (ws.generatedAdminToken) io.stdout.write(`Admin token: ${ws.adminToken}\n`);
    await appStarted;

    // One source per app: found again by its URL, or by its name when a restarted app moved.
    const source = await devSource(
      ws,
      appUrl,
      { account: fields, auth: options.auth, types, filter, intervalSeconds: interval },
      io,
    );
    io.stdout.write(`Source ${source.name} (${source.namespace}): types ${source.types.join(', ')}\n`);
    if (app && options.watch !== false) {
      const id = source.id;
      const running = ws;
      const restarted = app;
      restarted.watch(async () => {
        await running.apps.setUrl(id, restarted.url);
        if (options.sync !== false) await syncAgain(running, id, io);
      });
    }

    if (options.sync !== false) {
      const bar = progressBar(io, source.types);
      const off = ws.apps.onProgress((sourceId, event, totals) => {
        if (sourceId === source.id && event.kind !== 'retry')
          bar.update(event.type, event.kind, Number(totals.rowsSet));
      });
      const run = await ws.apps.sync(source.id, { wait: true });
      off();
      bar.end();
      if (run.status === 'succeeded') {
        io.stdout.write(
          `Synced ${run.rowsSet} rows (${run.rowsRemoved} removed) in ${run.pages} pages, ${run.durationMs} ms\n`,
        );
        // Values coerced, references to no synced row, files not stored: said once, per run.
        if (run.error) io.stdout.write(`Warnings: ${run.error}\n`);
      } else
        io.stdout.write(
          `${run.error?.startsWith('Sync failed') ? run.error : `Sync failed: ${run.error}`}\n`,
        );
    }
    if (options.verify) await verifyOnce(ws, source.id, io);
    io.stdout.write('Ready. Ctrl-C stops the workspace.\n');
    await new Promise<void>((done) => {
      process.once('SIGINT', () => done());
      process.once('SIGTERM', () => done());
    });
    return EXIT.ok;
  } finally {
    await ws?.close();
    await app?.close();
  }
}

export const devCommand: WeftCommand = {
  name: 'dev',
  register(program, io, done) {
    program
      .command('dev')
      .summary('run the local workspace with your app synced into it')
      .description(
        'Starts the local workspace (PGlite in .weft/, or DATABASE_URL), starts the app module (restarting it and syncing again when its files change) or uses the app URL, adds it as a source and runs a first sync.',
      )
      .argument('<app>', 'the app module (e.g. src/main.ts, listening on PORT) or its URL')
      .option('--account <json|file>', 'account field values (or OAuth tokens), e.g. \'{"token":"..."}\'')
      .option('--auth <id>', "the authentication to use (default: the app's first)")
      .option('--types <list>', "app types to sync, comma-separated (default: the app's defaults, else all)")
      .option('--filter <json|file>', 'filter values; date filters may be phrases ("last 3 months")')
      .option('--interval <seconds>', 'sync again every so many seconds')
      .option('--no-sync', 'do not run the first sync')
      .option('--no-watch', 'do not restart (and sync again) the app when its files change')
      .option(
        '--verify',
        'after the sync, check that the workspace holds what a full sync would (docs/drift.md)',
      )
      .addHelpText(
        'after',
        `
Environment: PORT (workspace port, default 3100), HOST (its address, default 127.0.0.1),
WEFT_ADMIN_TOKEN, WEFT_DATA_DIR (default .weft), DATABASE_URL (Postgres instead of PGlite),
WEFT_SECRET_KEY (encrypts stored accounts), WEFT_APP_PORT.

Examples:
  weft dev src/main.ts
  weft dev http://localhost:3101 --auth token --account '{"token":"..."}'
  weft dev src/main.ts --verify
  weft dev http://localhost:3101 --types book,author --filter '{"published":"last 3 years"}'

Exit status: 0 ok, 1 the workspace or the app failed to start, 2 usage error (0 also after Ctrl-C).`,
      )
      .action(async (target: string, options: DevOptions) => {
        try {
          done(await dev(target, options, io));
        } catch (error) {
          if (error instanceof UsageError) throw error;
          const cause = (error as { cause?: { code?: string } }).cause?.code;
          io.stderr.write(`weft dev: ${(error as Error).message}${cause ? ` (${cause})` : ''}\n`);
          done(EXIT.findings);
        }
      });
  },
};
