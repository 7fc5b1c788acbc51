// Write and read throughput of the workspace against the physical limit of the same engine:
// entities created through POST /api/commands (svc.command/batch of creates, rate limit off) vs a
// COPY of the same rows into a hand-made typed table; two queries compiled from the query object vs
// the same queries written by hand on that table. Runs on PGlite, and on Postgres when
// WEFT_BENCH_DATABASE_URL (or WEFT_TEST_DATABASE_URL) is set. WEFT_BENCH_N sets the entity count
// (default 1,000,000). Prints `bench <name>: weft X, <baseline> Y, ratio Z` lines.
//
// What each side of the write comparison includes, timed in turns of 10,000 rows each:
// - weft: the API's client runs in a process of its own, as a real client does: it makes the rows
//   (the same `row` function), serialises batches of 1,000 creates, POSTs them one at a time over
//   a kept-alive node:http connection (a new one each turn), reads and parses every answer (each
//   created entity comes back) and checks it. It makes the next batch while the current one is
//   being answered, and parses an answer once the next batch is sent. The clock runs in this
//   process from telling the client to write the 10,000 rows until it reports them written.
// - COPY: in this process, making the same rows (`row`), printing them as CSV, and COPY FROM STDIN
//   into the hand-made table (same columns and indexes as the workspace's) through the same driver
//   (pg, or PGlite's own COPY), one COPY per 10,000 rows.
// - binary COPY: the same, but the rows in COPY's binary format (src/db/copy-binary.ts, which the
//   workspace's own bulk creates send) into a second hand-made table: the server then parses no
//   text. A line of its own, without a target: the issue's comparison is the first.
// On PGlite a second line compares the CPU time of this process on each side (the workspace and
// its database for weft, making the CSV and the database's COPY for the other): the same work as
// the first line less the client's, and less shifted by other load on the machine.
import { fork, spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { BinaryRows } from '../src/db/copy-binary.js';
import type { DatabaseOption } from '../src/db/open-driver.js';
import { startWorkspace } from '../src/start-workspace.js';
import { openWorkspace } from '../src/workspace.js';

const N = Number(process.env.WEFT_BENCH_N ?? 1_000_000);
const BATCH = 1000;
const GROUPS = 100;
const PG_URL = process.env.WEFT_BENCH_DATABASE_URL ?? process.env.WEFT_TEST_DATABASE_URL;

const fields: Array<[string, string]> = [
  ['bench/n', 'svc/int'],
  ['bench/score', 'svc/decimal'],
  ['bench/flag', 'svc/bool'],
  ['bench/day', 'svc/date'],
  ['bench/at', 'svc/date-time'],
  ['bench/note', 'svc/text'],
  ['bench/email', 'svc/email'],
  ['bench/k', 'svc/int'],
];

function row(i: number, groups: string[]) {
  return {
    'svc/id': randomUUID(),
    'bench/name': `row ${i}`,
    'bench/n': i,
    'bench/score': `${i % 1000}.${i % 100}`,
    'bench/flag': i % 2 === 0,
    'bench/day': `2026-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`,
    'bench/at': new Date(1_760_000_000_000 + i * 1000).toISOString(),
    'bench/note': `note ${i % 977}`,
    'bench/email': `u${i % 5000}@example.test`,
    'bench/k': i % 31,
    'bench/group': { 'svc/id': groups[i % GROUPS]! },
  };
}

const fmt = (n: number) => (n >= 1000 ? `${Math.round(n).toLocaleString('en-US')}` : n.toFixed(2));
/** The write's ratio to COPY issue 27 asks for, on both engines. */
const WRITE_TARGET = 0.75;
const line = (name: string, weft: string, baseline: string, base: string, ratio: number, target?: number) =>
  console.log(
    `bench ${name}: weft ${weft}, ${baseline} ${base}, ratio ${ratio.toFixed(2)}${target === undefined ? '' : `, target ${target.toFixed(2)}`}`,
  );

/**
 * One POST over a kept-alive connection; `sent` resolves once the whole request is written, the
 * promise itself with the answer's text (a status other than 200 rejects). node:http rather than
 * fetch: fetch's web streams cost the sending process about twice the CPU for bodies this large.
 */
function post(agent: http.Agent, url: string, body: string): Promise<string> & { sent: Promise<void> } {
  let sent!: () => void;
  const sentP = new Promise<void>((r) => {
    sent = r;
  });
  const answer = new Promise<string>((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          authorization: 'Token bench-admin',
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (response.statusCode === 200) resolve(text);
          else reject(new Error(`${response.statusCode}: ${text}`));
        });
      },
    );
    request.on('error', reject);
    request.on('finish', sent);
    request.end(body);
  });
  return Object.assign(answer, { sent: sentP });
}

/** The creates of entities from..to-1 as one POST /api/commands body: one svc.command/batch. */
function createBody(from: number, to: number, groups: string[]): string {
  const commands = [];
  for (let i = from; i < to; i++) {
    commands.push({ command: 'svc.entity/create', args: { type: 'bench/row', entity: row(i, groups) } });
  }
  return JSON.stringify([{ command: 'svc.command/batch', args: { commands } }]);
}

/**
 * The API's client, in a process of its own as a real client is: for each chunk it is told, it
 * builds the batches of creates, POSTs them one at a time over one kept-alive connection, and
 * checks every answer (parsed whole: each created entity comes back). It builds a batch while the
 * one before is being answered, as any client may.
 */
function writeClient(): void {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let url = '';
  let groups: string[] = [];
  const check = (text: string, n: number) => {
    const r = (JSON.parse(text) as Array<{ success: boolean; result?: unknown[]; error?: unknown }>)[0];
    if (!r?.success || r.result?.length !== n) throw new Error(`batch failed: ${JSON.stringify(r?.error)}`);
  };
  const chunk = async (from: number, to: number) => {
    // The connection sat idle while the COPY side ran, which on a loaded machine can outlast the
    // server's keep-alive time: a request sent on it as the server closes it fails (ECONNRESET).
    // A new connection per chunk of 10,000 rows: one connect per ten batches.
    agent.destroy();
    const size = (start: number) => Math.min(to, start + BATCH) - start;
    let pending = post(agent, url, createBody(from, from + size(from), groups));
    for (let start = from; start < to; start += BATCH) {
      await pending.sent;
      const next = start + BATCH;
      const body = next < to ? createBody(next, next + size(next), groups) : undefined;
      const text = await pending;
      // The next batch goes out as soon as this one is answered; this answer is read once that
      // batch is written (one request in flight at a time, still).
      if (body !== undefined) {
        pending = post(agent, url, body);
        await pending.sent;
      }
      check(text, size(start));
    }
  };
  process.on('message', (m: { url?: string; groups?: string[]; from?: number; to?: number; stop?: true }) => {
    if (m.stop) {
      agent.destroy();
      process.disconnect();
      return;
    }
    if (m.url) {
      url = m.url;
      groups = m.groups!;
      process.send!({ ready: true });
      return;
    }
    chunk(m.from!, m.to!).then(
      () => process.send!({ done: true }),
      (error: unknown) => process.send!({ error: String(error) }),
    );
  });
}

/** The parent's side of writeClient: one call per chunk, resolved when the client is done. */
async function startWriteClient(url: string, groups: string[]) {
  const child = fork(fileURLToPath(import.meta.url), ['write-client'], { execArgv: process.execArgv });
  const next = () =>
    new Promise<{ done?: true; ready?: true; error?: string }>((resolve, reject) => {
      child.once('message', resolve as (m: unknown) => void);
      child.once('exit', (code) => reject(new Error(`the write client exited ${code}`)));
    });
  const answer = async () => {
    const m = await next();
    child.removeAllListeners('exit');
    if (m.error) throw new Error(m.error);
  };
  child.send({ url, groups });
  await answer();
  return {
    write: async (from: number, to: number) => {
      child.send({ from, to });
      await answer();
    },
    stop: () => {
      child.send({ stop: true });
    },
  };
}

/**
 * Medians of two timings taken in turns (a, b, a, b …), so that other load on the machine falls on
 * both alike; the first round only warms up.
 */
async function pairedMedians(
  times: number,
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
): Promise<[number, number]> {
  const samples: [number[], number[]] = [[], []];
  for (let i = 0; i <= times; i++) {
    for (const [k, fn] of [a, b].entries()) {
      const t = performance.now();
      await fn();
      if (i > 0) samples[k]!.push(performance.now() - t);
    }
  }
  const median = (s: number[]) => s.sort((x, y) => x - y)[Math.floor(s.length / 2)]!;
  return [median(samples[0]), median(samples[1])];
}

async function benchEngine(label: string, database: DatabaseOption, drop: () => Promise<void>) {
  const ws = await startWorkspace({
    database,
    rateLimit: 0,
    adminToken: 'bench-admin',
    webhooks: false,
    log: () => {},
  });
  // Setting up (types, groups) goes through the same API in this process; the timed writes go
  // through the client process below.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const command = async (commands: unknown) => {
      const text = await post(agent, `${ws.url}/api/commands`, JSON.stringify(commands));
      const body = JSON.parse(text) as Array<{ success: boolean; error?: unknown }>;
      if (!body.every((r) => r.success)) throw new Error(JSON.stringify(body.find((r) => !r.success)));
      return body;
    };
    const typeFields = (name: string, extra: Array<[string, string, Record<string, unknown>?]>) => ({
      'svc/name': name,
      'svc/fields': [
        { 'svc/name': 'bench/name', 'svc/type': 'svc/text', 'svc/meta': { 'ui/title?': true } },
        ...extra.map(([n, t, m]) => ({ 'svc/name': n, 'svc/type': t, 'svc/meta': m ?? {} })),
      ],
    });
    await command([
      { command: 'schema.type/create', args: typeFields('bench/group', []) },
      {
        command: 'schema.type/create',
        args: typeFields('bench/row', [...fields, ['bench/group', 'bench/group']]),
      },
    ]);
    const groups = Array.from({ length: GROUPS }, () => randomUUID());
    await command([
      {
        command: 'svc.command/batch',
        args: {
          commands: groups.map((id, i) => ({
            command: 'svc.entity/create',
            args: { type: 'bench/group', entity: { 'svc/id': id, 'bench/name': `group ${i}` } },
          })),
        },
      },
    ]);

    // ---- writes: the API against the physical limit, a COPY into a hand-made typed table ----
    const d = ws.driver;
    await d.exec(`
      CREATE TABLE bench_groups (id uuid PRIMARY KEY, name text NOT NULL);
      CREATE INDEX ON bench_groups (name);
      CREATE TABLE bench_rows (id uuid PRIMARY KEY, public_id text NOT NULL, created timestamptz NOT NULL DEFAULT now(),
        modified timestamptz NOT NULL DEFAULT now(), name text, n bigint, score numeric, flag boolean, day date,
        at timestamptz, note text, email text, k bigint, group_id uuid REFERENCES bench_groups(id) ON DELETE SET NULL,
        created_by uuid);
      CREATE INDEX ON bench_rows (created, id); CREATE INDEX ON bench_rows (public_id);
      CREATE INDEX ON bench_rows (name); CREATE INDEX ON bench_rows (group_id);
      CREATE TABLE bench_rows_binary (LIKE bench_rows INCLUDING ALL,
        FOREIGN KEY (group_id) REFERENCES bench_groups(id) ON DELETE SET NULL);`);
    await d.query(
      `INSERT INTO bench_groups SELECT unnest($1::uuid[]), 'group ' || generate_series(0, ${GROUPS - 1})`,
      [groups],
    );
    // Creation dates increase row by row, as the workspace's do, so both tables order alike.
    const copyBase = Date.now();
    // Who created each row: the workspace writes the user of the request (svc/created-by).
    const creator = ws.adminUserId;
    const csvChunk = (from: number, to: number) => {
      const out: string[] = [];
      for (let i = from; i < to; i++) {
        const r = row(i, groups);
        out.push(
          [
            r['svc/id'],
            String(i + 1),
            new Date(copyBase + i).toISOString(),
            new Date(copyBase + i).toISOString(),
            r['bench/name'],
            i,
            r['bench/score'],
            r['bench/flag'],
            r['bench/day'],
            r['bench/at'],
            r['bench/note'],
            r['bench/email'],
            r['bench/k'],
            r['bench/group']['svc/id'],
            creator,
          ].join(','),
        );
      }
      return `${out.join('\n')}\n`;
    };
    /** The same rows in COPY's binary format. */
    const binaryChunk = (from: number, to: number) => {
      const out = new BinaryRows();
      for (let i = from; i < to; i++) {
        const r = row(i, groups);
        out.row(15);
        out.value('uuid', r['svc/id']);
        out.text(String(i + 1));
        out.micros((copyBase + i) * 1000);
        out.micros((copyBase + i) * 1000);
        out.value('text', r['bench/name']);
        out.value('bigint', i);
        out.value('numeric', r['bench/score']);
        out.value('boolean', r['bench/flag']);
        out.value('date', r['bench/day']);
        out.value('timestamptz', r['bench/at']);
        out.value('text', r['bench/note']);
        out.value('text', r['bench/email']);
        out.value('bigint', r['bench/k']);
        out.value('uuid', r['bench/group']['svc/id']);
        out.value('uuid', creator);
      }
      return Buffer.concat([out.take(), BinaryRows.end()]);
    };
    const columns =
      '(id, public_id, created, modified, name, n, score, flag, day, at, note, email, k, group_id, created_by)';
    const COPY = `COPY bench_rows ${columns} FROM`;
    const COPY_BINARY = `COPY bench_rows_binary ${columns} FROM`;
    // The three run in turns, a chunk of each, so that other load on the machine and the growth of
    // the indexes fall on all alike.
    const CHUNK = 10_000;
    const copyClient =
      database.kind === 'postgres'
        ? new pg.Client({
            connectionString: database.url,
            ...(database.schema ? { options: `-c search_path=${database.schema}` } : {}),
          })
        : undefined;
    await copyClient?.connect();
    // PGlite takes COPY FROM '/dev/blob' with the data as a Blob: the same COPY path, in process.
    const pglite = (
      d as unknown as { raw?: { query: (sql: string, p: unknown[], o: unknown) => Promise<unknown> } }
    ).raw;
    if (!copyClient && !pglite) throw new Error('the PGlite driver does not expose COPY');
    /** One COPY of `data` (the whole chunk) through the same driver as the workspace's. */
    const copy = async (statement: string, format: 'csv' | 'binary', data: string | Buffer) => {
      if (copyClient) {
        await pipeline(
          Readable.from([data]),
          copyClient.query(copyFrom(`${statement} STDIN WITH (FORMAT ${format})`)),
        );
      } else {
        await pglite!.query(`${statement} '/dev/blob' WITH (FORMAT ${format})`, [], {
          blob: new Blob([data]),
        });
      }
    };
    const client = await startWriteClient(`${ws.url}/api/commands`, groups);
    let weftMs = 0;
    let copyMs = 0;
    let binaryMs = 0;
    // This process' CPU on each side as well: on PGlite it holds the database, so that is each
    // side's whole work but the client's, which other load on the machine shifts less than the
    // wall time.
    const cpuMs = () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1000;
    };
    let weftCpu = 0;
    let copyCpu = 0;
    try {
      for (let s = 0; s < N; s += CHUNK) {
        const end = Math.min(N, s + CHUNK);
        let t = performance.now();
        let c = cpuMs();
        await client.write(s, end);
        weftMs += performance.now() - t;
        weftCpu += cpuMs() - c;
        t = performance.now();
        c = cpuMs();
        await copy(COPY, 'csv', csvChunk(s, end));
        copyMs += performance.now() - t;
        copyCpu += cpuMs() - c;
        t = performance.now();
        await copy(COPY_BINARY, 'binary', binaryChunk(s, end));
        binaryMs += performance.now() - t;
      }
    } finally {
      client.stop();
      await copyClient?.end();
    }
    const weftRate = N / (weftMs / 1000);
    const copyRate = N / (copyMs / 1000);
    line(
      `workspace-write-${label}`,
      `${fmt(weftRate)} entities/s`,
      'COPY',
      `${fmt(copyRate)} rows/s`,
      weftRate / copyRate,
      WRITE_TARGET,
    );
    const binaryRate = N / (binaryMs / 1000);
    line(
      `workspace-write-binary-${label}`,
      `${fmt(weftRate)} entities/s`,
      'binary COPY',
      `${fmt(binaryRate)} rows/s`,
      weftRate / binaryRate,
    );
    if (!copyClient) {
      const perRow = (ms: number) => `${((ms * 1000) / N).toFixed(1)} µs/row of CPU`;
      line(`workspace-write-cpu-${label}`, perRow(weftCpu), 'COPY', perRow(copyCpu), copyCpu / weftCpu);
    }

    // ---- reads ----
    await d.exec('ANALYZE');
    const g = groups[7]!;
    const select = ['svc/id', 'bench/name', ...fields.map(([n]) => n), 'bench/group'];
    const exec = async (query: unknown, params: unknown) => {
      const [r] = await ws.execute([{ command: 'svc.entity/query', args: { query, params } }]);
      const expected = Math.min(100, Math.ceil((N - 7) / GROUPS));
      if (!r?.success) throw new Error(`query failed: ${JSON.stringify(r?.error)}`);
      const got = (r.result as unknown[]).length;
      if (got !== expected) throw new Error(`query returned ${got} rows, not ${expected}`);
    };
    const cols = 'id, public_id, created, modified, name, n, score, flag, day, at, note, email, k, group_id';
    const filtered = {
      'q/from': 'bench/row',
      'q/select': select,
      'q/where': ['=', ['bench/group'], '$g'],
      'q/order-by': [[['svc/creation-date'], 'q/desc']],
      'q/limit': 100,
    };
    const [w1, h1] = await pairedMedians(
      31,
      () => exec(filtered, { $g: { 'svc/id': g } }),
      () =>
        d.query(`SELECT ${cols} FROM bench_rows WHERE group_id = $1 ORDER BY created DESC, id LIMIT 100`, [
          g,
        ]),
    );
    line(
      `workspace-read-filtered-${label}`,
      `${w1.toFixed(2)} ms`,
      'hand-written SQL',
      `${h1.toFixed(2)} ms`,
      h1 / w1,
    );
    const related = { ...filtered, 'q/where': ['=', ['bench/group', 'bench/name'], '$name'] };
    const [w2, h2] = await pairedMedians(
      31,
      () => exec(related, { $name: 'group 7' }),
      () =>
        d.query(
          `SELECT r.id, r.public_id, r.created, r.modified, r.name, r.n, r.score, r.flag, r.day, r.at, r.note, r.email, r.k, r.group_id
         FROM bench_rows r JOIN bench_groups g ON g.id = r.group_id WHERE g.name = $1 ORDER BY r.created DESC, r.id LIMIT 100`,
          ['group 7'],
        ),
    );
    line(
      `workspace-read-relation-${label}`,
      `${w2.toFixed(2)} ms`,
      'hand-written SQL',
      `${h2.toFixed(2)} ms`,
      h2 / w2,
    );
  } finally {
    agent.destroy();
    await ws.close();
    await drop();
  }
}

const rssMb = () => process.resourceUsage().maxRSS / 1024;

// Each engine runs in a child process of its own, so that each peak RSS is that engine's alone.
const engine = process.argv[2];
if (engine === 'write-client') {
  writeClient();
} else if (engine === 'pglite-open') {
  // A workspace freshly opened on a new in-memory PGlite database, and nothing else.
  const ws = await openWorkspace({
    database: { kind: 'memory' },
    adminToken: 'bench-admin',
    webhooks: false,
  });
  await ws.execute([{ command: 'svc.schema/query' }]);
  await ws.close();
  const peak = rssMb();
  console.log(
    `bench workspace-open-peak-rss-pglite: weft ${peak.toFixed(0)} MB, target 500 MB, ratio ${(peak / 500).toFixed(2)}`,
  );
} else if (engine === 'pglite') {
  // A data folder, not memory: PGlite's in-memory file system would hold every table in this
  // process (both copies of N rows), which is not what is measured.
  const dataDir = await mkdtemp(join(tmpdir(), 'weft-bench-'));
  await benchEngine('pglite', { kind: 'pglite', dataDir }, async () => {
    await rm(dataDir, { recursive: true, force: true });
  });
  const peak = rssMb();
  console.log(
    `bench workspace-peak-rss-pglite: weft ${peak.toFixed(0)} MB, target 500 MB, ratio ${(peak / 500).toFixed(2)}`,
  );
} else if (engine === 'postgres' && PG_URL) {
  const schema = `weft_bench_${randomBytes(4).toString('hex')}`;
  await benchEngine('postgres', { kind: 'postgres', url: PG_URL, schema }, async () => {
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await c.end();
  });
  const peak = rssMb();
  console.log(
    `bench workspace-peak-rss-postgres: weft ${peak.toFixed(0)} MB, target 500 MB, ratio ${(peak / 500).toFixed(2)}`,
  );
} else {
  console.log(`workspace bench: ${N.toLocaleString('en-US')} entities per engine`);
  const self = fileURLToPath(import.meta.url);
  let failed = false;
  for (const e of ['pglite-open', 'pglite', 'postgres']) {
    if (e === 'postgres' && !PG_URL) {
      console.log(
        'workspace bench: Postgres skipped (set WEFT_BENCH_DATABASE_URL or WEFT_TEST_DATABASE_URL)',
      );
      continue;
    }
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', self, e], {
      stdio: 'inherit',
    });
    if (child.status !== 0) failed = true;
  }
  process.exitCode = failed ? 1 : 0;
}
