// SQL tables benchmark: a full sync of one large table through the app's data endpoint, every
// page as the service fetches it (POST data, follow nextPageConfig, parse the JSON), against a
// plain SELECT of the same rows through the same driver and the same connection settings (the
// physical limit). The fetching side runs in a process of its own, like the service; peak RSS is
// the app's process (app and driver) while the syncs run. Several rounds; medians are printed.
// Each round syncs both ways side by side: full-sync pages as JSON written by the database
// (`jsonPages: true`) and rows read by the app (`jsonPages: false`). `bench sql-sync <driver>` is
// the app's default for that driver (JSON pages on PGlite, rows on Postgres), the other line the
// other way.
//   SQL_BENCH_ROWS=100000 pnpm bench sql-tables     (default 1,000,000 rows)
//   SQL_BENCH_ROUNDS=5 (default 3), SQL_BENCH_PAGE_SIZE=10000 (default: the app's page size)
//   SQL_BENCH_BOTH_PATHS=0 syncs the default way only
// Runs on PGlite as the app serves it (in a worker thread, `pglite`) and, for comparison, in the
// app's own thread as it used to (`pglite-thread`; SQL_BENCH_PGLITE_THREAD=0 leaves it out), and on Postgres when WEFT_TEST_DATABASE_URL or DATABASE_URL is set (in a schema
// of its own, dropped afterwards).
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MARKER, PROTOCOL_PATHS, silentLogger, startServer } from '@weft/core';
import pg from 'pg';
import { PAGE_SIZE, createSqlTablesApp } from '../src/app.js';
import { type Database, pgliteDatabase, postgresDatabase } from '../src/database.js';
import { databaseSource } from '../src/databases.js';
import { initCluster, openCluster } from '../src/embedded.js';
import { workerDatabase } from '../src/worker-database.js';
import { readCatalog } from '../src/introspect.js';
import { readRows } from '../src/read-rows.js';
import { tableModels } from '../src/table-model.js';

const ROWS = Number(process.env.SQL_BENCH_ROWS ?? 1_000_000);
const ROUNDS = Math.max(1, Number(process.env.SQL_BENCH_ROUNDS ?? 3));
/** Rows per page: the app's default unless SQL_BENCH_PAGE_SIZE says otherwise. */
const PAGE = Number(process.env.SQL_BENCH_PAGE_SIZE ?? PAGE_SIZE);
const PG_URL = process.env.WEFT_TEST_DATABASE_URL || process.env.DATABASE_URL;
const BOTH_PATHS = process.env.SQL_BENCH_BOTH_PATHS !== '0';
const SELF = fileURLToPath(import.meta.url);
/** The app image's `MALLOC_MMAP_THRESHOLD_` (bytes): see the Dockerfile and the README's Memory. */
const MMAP_THRESHOLD = '131072';

const TABLE = (schema: string) => `
CREATE TABLE ${schema}.bench_rows (
  id bigint PRIMARY KEY,
  name text NOT NULL,
  amount numeric(10, 2) NOT NULL,
  active boolean NOT NULL,
  updated_at timestamptz NOT NULL
);
INSERT INTO ${schema}.bench_rows
SELECT i, 'row ' || i, (i % 10000) / 100.0, i % 3 = 0, timestamptz '2026-01-01' + i * interval '1 second'
FROM generate_series(1, ${ROWS}) AS i;
ANALYZE ${schema}.bench_rows;`;

const PLAIN = (schema: string) => `SELECT id, name, amount, active, updated_at FROM ${schema}.bench_rows`;

interface Target {
  driver: 'pglite' | 'postgres';
  /** How the report names it: the driver, or `pglite-thread` for PGlite in this thread. */
  label: string;
  schema: string;
  db: Database;
  /**
   * Whether the plain SELECT runs in a process of its own (Postgres), so that its million rows
   * in memory do not count against the app's RSS and rounds can alternate; PGlite is in this
   * process, so its plain SELECTs run after every sync.
   */
  plainApart: boolean;
  /** One timed plain SELECT: rows read and seconds. */
  plain: () => Promise<{ rows: number; seconds: number }>;
  cleanup: () => Promise<void>;
}

async function timed(run: () => Promise<unknown[][]>): Promise<{ rows: number; seconds: number }> {
  (globalThis as { gc?: () => void }).gc?.();
  const started = performance.now();
  const rows = (await run()).length;
  return { rows, seconds: (performance.now() - started) / 1000 };
}

async function pgliteTarget(inThread: boolean): Promise<Target> {
  // On disk, as the app's embedded database is kept: created and filled by processes of their
  // own, so that initdb's and the INSERT's memory are not this process's.
  const dir = mkdtempSync(join(tmpdir(), 'weft-sqlbench-'));
  await initCluster(dir);
  const fill = spawnSync(process.execPath, [...process.execArgv, SELF, 'pglite-fill', dir], {
    stdio: 'inherit',
  });
  if (fill.status !== 0) throw new Error('filling the PGlite table failed');
  const lite = inThread ? await openCluster(dir) : null;
  const db = lite ? await pgliteDatabase(lite) : await workerDatabase(dir);
  return {
    driver: 'pglite',
    label: inThread ? 'pglite-thread' : 'pglite',
    schema: 'public',
    db,
    plainApart: false,
    plain: () => timed(() => db.queryArrays(PLAIN('public'))),
    cleanup: async () => {
      await (lite ?? db).close().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresTarget(url: string): Promise<Target> {
  const schema = `weft_sqlbench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.query(TABLE(schema));
  return {
    driver: 'postgres',
    label: 'postgres',
    schema,
    db: postgresDatabase(url),
    plainApart: true,
    plain: () => runChild<{ rows: number; seconds: number }>(['plain-postgres', url, schema]),
    cleanup: async () => {
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    },
  };
}

/**
 * One POST over a kept-alive connection; resolves with the parsed JSON answer. node:http rather
 * than fetch: for a page of 500 kB, fetch's web streams cost the fetching process about twice the
 * CPU (12 against 6 ms a page of 5,000 rows, measured), which is the bench's own overhead, not the
 * app's. The answer is still read whole and parsed, as the service does.
 */
/** Seconds the fetcher spent joining and parsing answers once their last byte was in. */
let parseSeconds = 0;

function post(
  agent: http.Agent,
  url: string,
  body: string,
): Promise<{ status: number; json: unknown; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const started = performance.now();
          const text = Buffer.concat(chunks).toString('utf8');
          try {
            const json = response.statusCode === 200 ? JSON.parse(text) : null;
            parseSeconds += (performance.now() - started) / 1000;
            resolve({ status: response.statusCode ?? 0, json, text });
          } catch (error) {
            reject(error);
          }
        });
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

async function fullSync(url: string, account: Record<string, string>): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let pagination: unknown = null;
  let rows = 0;
  try {
    for (;;) {
      const response = await post(
        agent,
        url + PROTOCOL_PATHS.data,
        JSON.stringify({
          requestedType: 'bench_rows',
          types: ['bench_rows'],
          account,
          filter: {},
          pagination,
        }),
      );
      if (response.status !== 200) throw new Error(`data answered ${response.status}: ${response.text}`);
      const page = response.json as {
        items: unknown[];
        pagination: { hasNext: boolean; nextPageConfig?: unknown };
      };
      rows += page.items.length;
      if (!page.pagination.hasNext) return rows;
      pagination = page.pagination.nextPageConfig;
    }
  } finally {
    agent.destroy();
  }
}

async function measure(target: Target): Promise<void> {
  const source = databaseSource({ embedded: async () => target.db });
  // The target's database is handed over as the embedded one: the account names only the schema.
  const start = (jsonPages: boolean) =>
    startServer(createSqlTablesApp({ source, pageSize: PAGE, jsonPages }), {
      port: 0,
      host: '127.0.0.1',
      announce: false,
      logger: silentLogger,
    });
  // The app's default for this driver (see `jsonPages` in src/app.ts), and the other way.
  const jsonByDefault = target.driver === 'pglite';
  const app = BOTH_PATHS || jsonByDefault ? await start(true) : null;
  const rowsApp = BOTH_PATHS || !jsonByDefault ? await start(false) : null;
  const account = { schemas: target.schema };
  (globalThis as { gc?: () => void }).gc?.();
  const before = process.memoryUsage().rss;
  // Peak RSS while each path's syncs run.
  const peaks = { json: before, rows: before };
  let sampling: 'json' | 'rows' | null = null;
  const sample = setInterval(() => {
    if (sampling) peaks[sampling] = Math.max(peaks[sampling], process.memoryUsage().rss);
  }, 20);
  const syncs: number[] = [];
  const rowSyncs: number[] = [];
  // CPU seconds of each sync: the app's process (with PGlite, the database too) and the fetcher's.
  const cpu = {
    json: { app: [] as number[], fetcher: [] as number[], parse: [] as number[] },
    rows: { app: [] as number[], fetcher: [] as number[], parse: [] as number[] },
  };
  const plains: number[] = [];
  // Seconds the app's reader takes to read and serialise every page without HTTP, per path.
  const floors = { json: [] as number[], rows: [] as number[] };
  const plainRound = async () => {
    const plain = await target.plain();
    if (plain.rows !== ROWS) throw new Error(`plain SELECT read ${plain.rows} rows, expected ${ROWS}`);
    plains.push(ROWS / plain.seconds);
  };
  const syncRound = async (path: 'json' | 'rows', url: string, into: number[]) => {
    // The service's side runs in a process of its own, as the service does: its parsing and
    // memory are not the app's.
    // Both apps share this process: a full collection first, so that one path's garbage is not
    // collected (and its cost counted) during the other path's sync.
    (globalThis as { gc?: () => void }).gc?.();
    sampling = path;
    const appCpu = process.cpuUsage();
    const { synced, weftSeconds, cpuSeconds, parseSeconds } = await runChild<{
      synced: number;
      weftSeconds: number;
      cpuSeconds: number;
      parseSeconds: number;
    }>(['client', url, JSON.stringify(account)]);
    const used = process.cpuUsage(appCpu);
    cpu[path].app.push((used.user + used.system) / 1e6);
    cpu[path].fetcher.push(cpuSeconds);
    cpu[path].parse.push(parseSeconds);
    peaks[path] = Math.max(peaks[path], process.memoryUsage().rss);
    sampling = null;
    if (synced !== ROWS) throw new Error(`synced ${synced} rows, expected ${ROWS}`);
    into.push(ROWS / weftSeconds);
  };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      // Alternating, so drift on the shared machine hits every side alike.
      if (app) await syncRound('json', app.url, syncs);
      if (rowsApp) await syncRound('rows', rowsApp.url, rowSyncs);
      if (target.plainApart) await plainRound();
    }
    if (!target.plainApart) for (let round = 0; round < ROUNDS; round++) await plainRound();
    for (let round = 0; round < ROUNDS; round++) {
      if (app) floors.json.push(await readChain(target, true));
      if (rowsApp) floors.rows.push(await readChain(target, false));
    }
  } finally {
    clearInterval(sample);
    await app?.close();
    await rowsApp?.close();
  }
  const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
  const report = (
    name: string,
    rates: number[],
    peak: number,
    used: { app: number[]; fetcher: number[]; parse: number[] },
    floor: number[],
  ) => {
    const ratios = rates.map((s, i) => s / plains[i]!);
    console.log(
      `bench ${name} ${target.label}: weft ${Math.round(median(rates))} rows/s, plain SELECT ${Math.round(median(plains))} rows/s, ratio ${median(ratios).toFixed(2)}, peak RSS ${mb(peak)} MB`,
    );
    console.log(
      `  (${ROWS} rows, pages of ${PAGE}; medians of ${ROUNDS} rounds, ratios ${ratios.map((r) => r.toFixed(2)).join(' ')}; RSS ${mb(before)} MB before the first sync; CPU s per sync: app ${median(used.app).toFixed(2)}, fetcher ${median(used.fetcher).toFixed(2)} with its start-up)`,
    );
    // The floor of this bench's chain: what the app's reader and the service's parse cost alone.
    const read = median(floor);
    const parse = median(used.parse);
    console.log(
      `  (floor: reading and serialising the pages in the app without HTTP ${read.toFixed(2)} s, the fetcher joining and parsing the answers ${parse.toFixed(2)} s; with nothing else, at most ratio ${(ROWS / median(plains) / (read + parse)).toFixed(2)})`,
    );
  };
  const json = () =>
    report(jsonByDefault ? 'sql-sync' : 'sql-sync-json-pages', syncs, peaks.json, cpu.json, floors.json);
  const rows = () =>
    report(jsonByDefault ? 'sql-sync-rows' : 'sql-sync', rowSyncs, peaks.rows, cpu.rows, floors.rows);
  if (jsonByDefault) {
    json();
    if (rowsApp) rows();
  } else {
    rows();
    if (app) json();
  }
}

/**
 * The app's own share of a sync with nothing around it: the reader the data endpoint uses, run
 * through every page of the table in this process, each page serialised to bytes as core sends
 * it (plain items with JSON.stringify, `jsonItems()` texts as they are). No HTTP, no request
 * handling, no catalog check: the part of a sync no change to those could remove.
 */
async function readChain(target: Target, jsonPages: boolean): Promise<number> {
  const { tables } = await readCatalog(target.db, [target.schema]);
  const model = tableModels(tables, [target.schema]).find((m) => m.table.name === 'bench_rows');
  if (!model) throw new Error('bench_rows is not among the models');
  (globalThis as { gc?: () => void }).gc?.();
  const started = performance.now();
  let rows = 0;
  const pages = readRows(model, {
    from: `"${target.schema}"."bench_rows" AS weft_row`,
    alias: 'weft_row',
    batch: PAGE,
    since: null,
    cursor: undefined,
    run: (fn) => fn(target.db),
    jsonPages,
  });
  for await (const batch of pages) {
    if (!Array.isArray(batch)) continue; // a resume() point
    const plain: unknown[] = [];
    for (const entry of batch as Array<Record<PropertyKey, unknown>>) {
      if (entry[MARKER] === 'json') {
        Buffer.from(entry.text as string);
        rows += entry.count as number;
      } else plain.push(entry);
    }
    if (plain.length > 0) Buffer.from(JSON.stringify(plain));
    rows += plain.length;
  }
  if (rows !== ROWS) throw new Error(`the reader read ${rows} rows, expected ${ROWS}`);
  return (performance.now() - started) / 1000;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Runs this file in a child process with `args`; resolves with the JSON it prints. */
async function runChild<T>(args: string[]): Promise<T> {
  const child = spawn(process.execPath, [...process.execArgv, SELF, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`the ${args[0]} process exited ${code}`);
  return JSON.parse(out) as T;
}

// Each driver in a process of its own, so one's memory does not count against the other's peak.
const driver = process.argv[2];
if (driver === 'client') {
  const started = performance.now();
  const synced = await fullSync(process.argv[3]!, JSON.parse(process.argv[4]!) as Record<string, string>);
  const cpu = process.cpuUsage();
  process.stdout.write(
    JSON.stringify({
      synced,
      weftSeconds: (performance.now() - started) / 1000,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      parseSeconds,
    }),
  );
} else if (driver === 'plain-postgres') {
  // The same driver with the app's connection settings (type parsers, session settings).
  const db = postgresDatabase(process.argv[3]!);
  await db.query('SELECT 1'); // connected before the clock starts, as the app's pool is
  const result = await timed(() => db.queryArrays(PLAIN(process.argv[4]!)));
  await db.close();
  process.stdout.write(JSON.stringify(result));
} else if (driver === 'pglite-fill') {
  const lite = await openCluster(process.argv[3]!);
  await lite.exec(TABLE('public'));
  await lite.close();
} else if (driver === 'pglite' || driver === 'pglite-thread' || driver === 'postgres') {
  const target =
    driver === 'postgres' ? await postgresTarget(PG_URL!) : await pgliteTarget(driver === 'pglite-thread');
  try {
    await measure(target);
  } finally {
    await target.db.close().catch(() => {});
    await target.cleanup().catch(() => {});
  }
} else {
  const drivers = [
    'pglite',
    ...(process.env.SQL_BENCH_PGLITE_THREAD === '0' ? [] : ['pglite-thread']),
    ...(PG_URL ? ['postgres'] : []),
  ];
  if (!PG_URL) console.log('bench sql-sync postgres: skipped (set WEFT_TEST_DATABASE_URL or DATABASE_URL)');
  let failed = false;
  for (const name of drivers) {
    // The app's process runs with the allocator setting its image sets (see the Dockerfile).
    const run = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), name], {
      stdio: 'inherit',
      env: { ...process.env, MALLOC_MMAP_THRESHOLD_: process.env.MALLOC_MMAP_THRESHOLD_ ?? MMAP_THRESHOLD },
    });
    if (run.status !== 0) failed = true;
  }
  process.exitCode = failed ? 1 : 0;
}
