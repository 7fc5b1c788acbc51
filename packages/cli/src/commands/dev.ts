// `weft dev <app module or URL>`: the local workspace playing the service towards one app. Starts
// the workspace (PGlite in .weft/, or DATABASE_URL), starts the app when given a module (again
// whenever its files change), registers it as a source, runs a first sync with a progress bar and
// keeps serving until Ctrl-C. After a restart the source is pointed at the app again and synced
// again, so a changed schema or data shows up without restarting weft dev. See docs/dev.md.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { DataFolderLock, HostedWorkspace } from '@weft/workspace';
import { parseNamespace } from '@weft/namespace';
import type { WeftCommand } from '../command.js';
import { type CliIo, counted, EXIT, UsageError } from '../io.js';
import { AppProcess } from './dev-app-process.js';
import { devAppPageKey } from './dev-page-key.js';
import { checkAccountArgs, isFreshDataFolder } from './dev-preflight.js';
import { readyLine } from './dev-ready.js';
import { showExchanges } from './dev-verbose.js';
import { freePort } from './free-port.js';
import { verifyOnce } from './dev-verify.js';

// The workspace (and what uses it) is loaded once the app is starting: its modules take a few
// hundred milliseconds to load, which the app's own start (tsx, in a process of its own) overlaps.
const loadWorkspace = () =>
  Promise.all([import('@weft/workspace'), import('./dev-sync.js'), import('./dev-source.js')]);
type DevSync = typeof import('./dev-sync.js');

interface DevOptions {
  account?: string;
  auth?: string;
  types?: string;
  filter?: string;
  interval?: string;
  sync?: boolean;
  watch?: boolean;
  verify?: boolean;
  verbose?: boolean;
  namespace?: string;
  newToken?: boolean;
  full?: boolean;
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
      const line = `Syncing [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${counted(rows, 'row')} · ${detail}`;
      io.stdout.write(io.stdout.isTTY ? `\r${line}\u001b[K` : `${line}\n`);
    },
    end() {
      if (io.stdout.isTTY) io.stdout.write('\n');
    },
  };
}

/** Syncs the source again after a restart; a sync still running (cut off by the restart) is waited for. */
async function syncAgain(
  { syncWhenFree, syncKind, tellUnsynced }: DevSync,
  ws: HostedWorkspace,
  id: string,
  io: CliIo,
): Promise<void> {
  const run = await syncWhenFree(ws, id, {}, io);
  io.stdout.write(
    run.status === 'succeeded'
      ? `Synced again: ${counted(run.rowsSet, 'row')} (${run.rowsRemoved} removed)${syncKind(run)}\n`
      : `Sync after the restart failed: ${run.error}\n`,
  );
  if (run.status === 'succeeded') await tellUnsynced(ws, id, io);
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
  if (options.namespace !== undefined) {
    try {
      env.WEFT_NAMESPACE = parseNamespace(options.namespace, '--namespace');
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  }
  if (!env.DATABASE_URL && !env.WEFT_DATA_DIR) env.WEFT_DATA_DIR = resolve(io.cwd, '.weft');
  if (options.newToken && env.WEFT_ADMIN_TOKEN)
    throw new UsageError(
      '--new-token: WEFT_ADMIN_TOKEN sets the admin token already; unset it to get a fresh one',
    );

  // Where the workspace keeps its key files: the data folder, or .weft beside a Postgres one.
  const memory = env.WEFT_DATA_DIR === ':memory:';
  const keyDir = env.WEFT_DATA_DIR && !memory ? resolve(io.cwd, env.WEFT_DATA_DIR) : resolve(io.cwd, '.weft');
  let app: AppProcess | undefined;
  let appStarted: Promise<void> | undefined;
  if (file) {
    // The app's page cursors outlive its restarts (dev-page-key.ts).
    const pageKeys = io.env.WEFT_PAGE_KEYS || (await devAppPageKey(memory ? undefined : keyDir));
    const appIo = { ...io, env: { ...io.env, WEFT_PAGE_KEYS: pageKeys } };
    app = new AppProcess(file, Number(env.WEFT_APP_PORT) || (await freePort()), appIo);
    io.stdout.write(`Starting the app ${target}\n`);
    // The app starts while the workspace loads and boots: both take seconds. Its failure is
    // reported below; when the data folder turns out to be in use, it is stopped again.
    appStarted = app.start();
    appStarted.catch(() => {});
  }
  const appUrl = app ? app.url : target;
  let ws: HostedWorkspace | undefined;
  let lock: DataFolderLock | undefined;
  try {
    const [workspace, sync, { devSource }] = await loadWorkspace();
    const { DEV_LEASE_SECONDS, syncKind, syncWhenFree, tellUnsynced } = sync;
    const config = workspace.configFromEnv(env as NodeJS.ProcessEnv);
    // The PGlite folder, when the workspace lives in one: one process at a time (see lockDataFolder).
    const dataFolder =
      config.database.kind === 'pglite' ? resolve(io.cwd, config.database.dataDir) : undefined;
    const freshFolder = isFreshDataFolder(dataFolder);
    lock = dataFolder ? workspace.lockDataFolder(dataFolder, `weft dev ${target}`) : undefined;
    // A fresh admin token replaces the folder's stored one (the old one stops working).
    const newToken = options.newToken ? workspace.generateToken() : undefined;
    // A fresh folder (before anything of the boot lands in it), for undoing a boot whose first
    // start's arguments turn out wrong.
    const freshEntries = freshFolder && dataFolder ? new Set(readdirSync(dataFolder)) : undefined;
    const booting = workspace.startHostedWorkspace({
      ...config,
      ...(newToken ? { adminToken: newToken } : {}),
      keyDir,
      log: (m) => io.stderr.write(`${m}\n`),
      hostOptions: {
        runLeaseSeconds: DEV_LEASE_SECONDS,
        // On PGlite one thread does every write, so types read side by side gain little, and a
        // type written before the rows it points at has its relations set one by one at the end.
        // One page job at a time takes the types relation targets first (see docs/dev.md).
        ...(config.database.kind === 'postgres' ? {} : { concurrency: 1 }),
      },
    });
    booting.catch(() => {});
    // The arguments a first start needs are checked against the app while the workspace boots
    // beside it. When they are wrong the boot is undone (closed, and what it put in the fresh
    // folder removed): the next start is a first start again, its admin token printed then.
    if (freshFolder && !fields) {
      try {
        await appStarted;
        await checkAccountArgs({ appUrl, target, auth: options.auth, account: fields });
      } catch (error) {
        await (await booting.catch(() => undefined))?.close();
        if (dataFolder && freshEntries)
          for (const name of readdirSync(dataFolder))
            if (!freshEntries.has(name)) rmSync(join(dataFolder, name), { recursive: true, force: true });
        throw error;
      }
    }
    ws = await booting;
    io.stdout.write(`Workspace listening on ${ws.url}\n`);
    if (ws.namespace !== 'svc') io.stdout.write(`The data API speaks the ${ws.namespace} namespace\n`);
    const notice = workspace.everyInterfaceNotice(config.host);
    if (notice) io.stdout.write(`${notice}\n`);
    const printed = ws.generatedAdminToken || newToken !== undefined;
    if (printed) io.stdout.write(`Admin token: ${ws.adminToken}\n`);
    if (options.verbose) showExchanges(ws, io);
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
        if (options.sync !== false) await syncAgain(sync, running, id, io);
      });
    }

    if (options.sync !== false) {
      const bar = progressBar(io, source.types);
      const off = ws.apps.onProgress((sourceId, event, totals) => {
        if (sourceId === source.id && event.kind !== 'retry')
          bar.update(event.type, event.kind, Number(totals.rowsSet));
      });
      const run = await syncWhenFree(ws, source.id, options.full ? { full: true } : {}, io);
      off();
      bar.end();
      if (run.status === 'succeeded') {
        io.stdout.write(
          `Synced ${counted(run.rowsSet, 'row')} (${run.rowsRemoved} removed) in ${counted(run.pages, 'page')}, ${run.durationMs} ms${syncKind(run)}\n`,
        );
        await tellUnsynced(ws, source.id, io);
        // Values coerced, references to no synced row, files not stored: said once, per run.
        if (run.error) io.stdout.write(`Warnings: ${run.error}\n`);
      } else
        io.stdout.write(
          `${run.error?.startsWith('Sync failed') ? run.error : `Sync failed: ${run.error}`}\n`,
        );
    }
    if (options.verify) await verifyOnce(ws, source.id, io);
    // Ctrl-C is taken before "Ready." is printed: whoever reads that line may stop weft dev at once.
    const stopped = new Promise<void>((done) => {
      process.once('SIGINT', () => done());
      process.once('SIGTERM', () => done());
    });
    io.stdout.write(readyLine(ws.url, printed ? 'printed' : env.WEFT_ADMIN_TOKEN ? 'env' : 'stored'));
    await stopped;
    return EXIT.ok;
  } finally {
    await ws?.close();
    await app?.close();
    lock?.release();
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
      .option('--full', 'make the first sync full: every row again (a schema change does so by itself)')
      .option('--no-watch', 'do not restart (and sync again) the app when its files change')
      .option('--new-token', 'print a fresh admin token for this data folder (the old one stops working)')
      .option(
        '--namespace <svc|fibery>',
        "the word the data API uses for the service's namespace: fibery answers as the real service does (default: WEFT_NAMESPACE, else svc)",
      )
      .option(
        '--verify',
        'after the sync, check that the workspace holds what a full sync would (docs/drift.md)',
      )
      .option(
        '--verbose',
        "print each data request of a sync: request (secrets redacted), status, duration, items, warnings, the app's error body",
      )
      .addHelpText(
        'after',
        `
Environment: PORT (workspace port, default 3100), HOST (its address, default 127.0.0.1),
WEFT_ADMIN_TOKEN, WEFT_DATA_DIR (default .weft), DATABASE_URL (Postgres instead of PGlite),
WEFT_SECRET_KEY (encrypts stored accounts), WEFT_APP_PORT, WEFT_NAMESPACE (svc or fibery),
WEFT_PAGE_KEYS (the app's; default a key kept in the data folder).

Examples:
  weft dev src/main.ts
  weft dev http://localhost:3101 --auth token --account '{"token":"..."}'
  weft dev src/main.ts --verify
  weft dev src/main.ts --verbose
  weft dev src/main.ts --namespace fibery
  weft dev src/main.ts --new-token
  weft dev src/main.ts --full
  weft dev http://localhost:3101 --types book,author --filter '{"published":"last 3 years"}'

Exit status: 0 ok, 1 the workspace or the app failed to start (or the data folder is in use), 2 usage error
(a missing --account included; 0 also after Ctrl-C).`,
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
