// SQL tables benchmark: a full sync of one large table through the app's data endpoint, every
// page as the service fetches it (POST data, follow nextPageConfig, parse the JSON), against a
// plain SELECT of the same rows through the same driver (the physical limit). The fetching side
// runs in a process of its own, like the service; peak RSS is the app's process (app and driver)
// while the sync runs.
//   SQL_BENCH_ROWS=100000 pnpm bench sql-tables     (default 1,000,000 rows)
// Runs on PGlite, and on Postgres when WEFT_TEST_DATABASE_URL or DATABASE_URL is set (in a schema
// of its own, dropped afterwards).
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { PROTOCOL_PATHS, silentLogger, startServer } from '@weft/core';
import pg from 'pg';
import { PAGE_SIZE, createSqlTablesApp } from '../src/app.js';
import { type Database, pgliteDatabase, postgresDatabase } from '../src/database.js';
import { databaseSource } from '../src/databases.js';

const ROWS = Number(process.env.SQL_BENCH_ROWS ?? 1_000_000);
/** Rows per page: the app's default unless SQL_BENCH_PAGE_SIZE says otherwise. */
const PAGE = Number(process.env.SQL_BENCH_PAGE_SIZE ?? PAGE_SIZE);
const PG_URL = process.env.WEFT_TEST_DATABASE_URL || process.env.DATABASE_URL;

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

interface Target {
  driver: 'pglite' | 'postgres';
  schema: string;
  db: Database;
  /** The plain SELECT through the same driver: the rows it read. */
  plain: () => Promise<number>;
  cleanup: () => Promise<void>;
}

async function pgliteTarget(): Promise<Target> {
  // On disk, as a deployment would keep a million rows: in memory they would count as RSS.
  const dir = mkdtempSync(join(tmpdir(), 'weft-sqlbench-'));
  const lite = await PGlite.create(dir);
  await lite.exec(TABLE('public'));
  return {
    driver: 'pglite',
    schema: 'public',
    db: pgliteDatabase(lite),
    plain: async () =>
      (await lite.query('SELECT id, name, amount, active, updated_at FROM public.bench_rows')).rows.length,
    cleanup: async () => {
      await lite.close().catch(() => {});
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
    schema,
    db: postgresDatabase(url),
    plain: async () =>
      (await admin.query(`SELECT id, name, amount, active, updated_at FROM ${schema}.bench_rows`)).rows
        .length,
    cleanup: async () => {
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    },
  };
}

async function fullSync(url: string, account: Record<string, string>): Promise<number> {
  let pagination: unknown = null;
  let rows = 0;
  for (;;) {
    const response = await fetch(url + PROTOCOL_PATHS.data, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        requestedType: 'bench_rows',
        types: ['bench_rows'],
        account,
        filter: {},
        pagination,
      }),
    });
    if (response.status !== 200)
      throw new Error(`data answered ${response.status}: ${await response.text()}`);
    const page = (await response.json()) as {
      items: unknown[];
      pagination: { hasNext: boolean; nextPageConfig?: unknown };
    };
    rows += page.items.length;
    if (!page.pagination.hasNext) return rows;
    pagination = page.pagination.nextPageConfig;
  }
}

async function measure(target: Target): Promise<void> {
  const source = databaseSource({ embedded: async () => target.db });
  // The target's database is handed over as the embedded one: the account names only the schema.
  const app = await startServer(createSqlTablesApp({ source, pageSize: PAGE }), {
    port: 0,
    host: '127.0.0.1',
    announce: false,
    logger: silentLogger,
  });
  const account = { schemas: target.schema };
  (globalThis as { gc?: () => void }).gc?.();
  const before = process.memoryUsage().rss;
  let peak = 0;
  const sample = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  try {
    // The service's side runs in a process of its own, as the service does: its parsing and
    // memory are not the app's. The first page pays for reading the catalog, as it would.
    const { synced, weftSeconds } = await syncFromAnotherProcess(app.url, account);
    peak = Math.max(peak, process.memoryUsage().rss);
    clearInterval(sample);
    if (synced !== ROWS) throw new Error(`synced ${synced} rows, expected ${ROWS}`);
    (globalThis as { gc?: () => void }).gc?.();
    const started = performance.now();
    const plainRows = await target.plain();
    const plainSeconds = (performance.now() - started) / 1000;
    if (plainRows !== ROWS) throw new Error(`plain SELECT read ${plainRows} rows, expected ${ROWS}`);
    const weft = ROWS / weftSeconds;
    const plain = ROWS / plainSeconds;
    console.log(
      `bench sql-sync ${target.driver}: weft ${Math.round(weft)} rows/s, plain SELECT ${Math.round(plain)} rows/s, ratio ${(weft / plain).toFixed(2)}, peak RSS ${Math.round(peak / 1024 / 1024)} MB`,
    );
    console.log(
      `  (${ROWS} rows; RSS ${Math.round(before / 1024 / 1024)} MB when the sync started; pages of ${PAGE} rows)`,
    );
  } finally {
    clearInterval(sample);
    await app.close();
  }
}

/** Runs `fullSync` in a child process; resolves with its count and its own timing. */
async function syncFromAnotherProcess(
  url: string,
  account: Record<string, string>,
): Promise<{ synced: number; weftSeconds: number }> {
  const child = spawn(
    process.execPath,
    [...process.execArgv, fileURLToPath(import.meta.url), 'client', url, JSON.stringify(account)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`the syncing process exited ${code}`);
  return JSON.parse(out) as { synced: number; weftSeconds: number };
}

// Each driver in a process of its own, so one's memory does not count against the other's peak.
const driver = process.argv[2];
if (driver === 'client') {
  const started = performance.now();
  const synced = await fullSync(process.argv[3]!, JSON.parse(process.argv[4]!) as Record<string, string>);
  process.stdout.write(JSON.stringify({ synced, weftSeconds: (performance.now() - started) / 1000 }));
} else if (driver === 'pglite' || driver === 'postgres') {
  const target = driver === 'pglite' ? await pgliteTarget() : await postgresTarget(PG_URL!);
  try {
    await measure(target);
  } finally {
    await target.db.close().catch(() => {});
    await target.cleanup().catch(() => {});
  }
} else {
  const drivers = PG_URL ? ['pglite', 'postgres'] : ['pglite'];
  if (!PG_URL) console.log('bench sql-sync postgres: skipped (set WEFT_TEST_DATABASE_URL or DATABASE_URL)');
  let failed = false;
  for (const name of drivers) {
    const run = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), name], {
      stdio: 'inherit',
    });
    if (run.status !== 0) failed = true;
  }
  process.exitCode = failed ? 1 : 0;
}
