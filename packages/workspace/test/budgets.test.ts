import { beforeAll, describe, expect, it } from 'vitest';
import { budgetsFromEnv, DEFAULT_BUDGETS } from '../src/commands/budgets.js';
import { configFromEnv } from '../src/config.js';
import { loadCatalog } from '../src/schema/catalog.js';
import { describeEachDatabase, type Harness, typeArgs, useWorkspace } from './support/databases.js';

// Request budgets of the data API (docs/security.md, "Request budgets"): each limit answers a
// 4xx {message, code: 'over-budget'} that names it, and a normal client keeps working.

const T = 'bg/row';

async function userToken(h: Harness): Promise<string> {
  return (await h.ws.createUser({ name: `Reader ${Math.random()}` })).token;
}

/** `n` rows of T written straight into its table (a bulk write through the API would take long here). */
async function seed(h: Harness, n: number): Promise<void> {
  const catalog = await loadCatalog(h.ws.driver);
  const type = catalog.type(T);
  const field = catalog.field(type, 'bg/text');
  if (field.storage.kind !== 'column') throw new Error('bg/text is a column');
  await h.ws.driver.query(
    `INSERT INTO ${type.table} (id, public_id, ${field.storage.col})
     SELECT gen_random_uuid(), g::text, repeat(md5(g::text), 8) FROM generate_series(1, ${n}) g`,
  );
}

/**
 * The rows of T, counted in its table: not through the API, whose request would fall under the
 * budgets being tested (a suite's short request budget, on a loaded machine).
 */
const count = async (h: Harness) => {
  const table = (await loadCatalog(h.ws.driver)).type(T).table;
  const { rows } = await h.ws.driver.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
  return rows[0]?.n ?? 0;
};

const query = (q: Record<string, unknown>, params: Record<string, unknown> = {}) => ({
  command: 'svc.entity/query',
  args: { query: { 'q/from': T, ...q }, params },
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The type every suite here reads and writes: a text field and a relation to itself. */
const createType = (h: ReturnType<typeof useWorkspace>) =>
  h.ws.execute([
    {
      command: 'schema.type/create',
      args: typeArgs(T, [
        ['bg/text', 'svc/text'],
        ['bg/next', T],
      ]),
    },
  ]);

describeEachDatabase('request budgets: sizes', (target) => {
  const h = useWorkspace(target, { budgets: { maxCommands: 50, maxResultRows: 5 } });
  let token: string;

  beforeAll(async () => {
    await createType(h);
    token = await userToken(h);
  });

  it('more commands in one request than maxCommands (batches counted) is a 413 naming the limit; nothing runs', async () => {
    const create = { command: 'svc.entity/create', args: { type: T, entity: {} } };
    const flat = await h.request('POST', '/api/commands', Array(51).fill(create), token);
    expect(flat.status).toBe(413);
    expect(flat.body).toEqual({ message: expect.stringContaining('maxCommands'), code: 'over-budget' });
    const nested = await h.request(
      'POST',
      '/api/commands',
      [{ command: 'svc.command/batch', args: { commands: Array(50).fill(create) } }],
      token,
    );
    expect(nested.status).toBe(413);
    expect(await count(h)).toBe(0);
    const fits = await h.request('POST', '/api/commands', Array(50).fill(create), token);
    expect(fits.status).toBe(200);
    expect(fits.body.every((r: { success: boolean }) => r.success)).toBe(true);
    await h.ws.driver.query(`DELETE FROM ${(await loadCatalog(h.ws.driver)).type(T).table}`);
  });

  it('a value nested 100,000 deep is a 400 from the body depth check, not a 500', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const body = `[{"command":"svc.entity/create","args":{"type":"${T}","entity":{"bg/text":${deep}}}}]`;
    const res = await h.request('POST', '/api/commands', body, token);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      message: 'Request body is nested deeper than 256 levels',
      code: 'bad-request',
    });
  });

  it.each([3_000, 20_000])(
    'a field path %i steps long is refused with a 400 result naming maxPathLength',
    async (n) => {
      const path = Array(n).fill('bg/next');
      const [r] = await h.commands(
        [query({ 'q/select': ['svc/id'], 'q/where': ['=', path, '$v'] }, { $v: null })],
        token,
      );
      expect(r.success).toBe(false);
      expect(r.error).toMatchObject({
        code: 'over-budget',
        status: 400,
        message: expect.stringContaining('maxPathLength'),
      });
      expect(r.error.message.length).toBeLessThan(300);
    },
  );

  it('a query of 3,000 q/contains is refused before it runs (maxQueryNodes / maxTextFilters)', async () => {
    const n = 3_000;
    const where = ['q/or', ...Array.from({ length: n }, (_, i) => ['q/contains', ['bg/text'], `$p${i}`])];
    const params = Object.fromEntries(Array.from({ length: n }, (_, i) => [`$p${i}`, `x${i}`]));
    const [r] = await h.commands([query({ 'q/select': ['svc/id'], 'q/where': where }, params)], token);
    expect(r.success).toBe(false);
    expect(r.error).toMatchObject({ code: 'over-budget', status: 400 });
    // 70,000 selected values would be as many parameters and aliases.
    const [wide] = await h.commands([query({ 'q/select': Array(70_000).fill('svc/id') })], token);
    expect(wide.error).toMatchObject({
      code: 'over-budget',
      message: expect.stringContaining('maxQueryNodes'),
    });
  });

  it('results: q/limit above maxResultRows is refused; q/no-limit over it too; within it answers', async () => {
    await h.commands(
      Array.from({ length: 6 }, () => ({ command: 'svc.entity/create', args: { type: T, entity: {} } })),
    );
    const [over, all, page] = await h.commands(
      [
        query({ 'q/select': ['svc/id'], 'q/limit': 6 }),
        query({ 'q/select': ['svc/id'], 'q/limit': 'q/no-limit' }),
        query({ 'q/select': ['svc/id'], 'q/limit': 5, 'q/offset': 5 }),
      ],
      token,
    );
    expect(over.error).toMatchObject({
      code: 'over-budget',
      message: expect.stringContaining('maxResultRows'),
    });
    expect(all.error).toMatchObject({
      code: 'over-budget',
      message: expect.stringContaining('maxResultRows'),
    });
    expect(page.success).toBe(true);
    expect(page.result).toHaveLength(1);
  });
});

// The request budget of these tests: long enough that a loaded machine (load 8 on two cores)
// still runs a first create within it, short against the many creates a request sends.
const BUDGET_MS = 1000;
const CREATES = 8_000;

describeEachDatabase('request budgets: time and hang-ups', (target) => {
  const h = useWorkspace(target, { budgets: { requestTimeoutMs: BUDGET_MS } });
  let token: string;

  beforeAll(async () => {
    await createType(h);
    token = await userToken(h);
  });

  it('a request stops starting commands once requestTimeoutMs has passed; the earlier ones stand', async () => {
    const create = { command: 'svc.entity/create', args: { type: T, entity: {} } };
    const results = await h.commands(Array(CREATES).fill(create), token);
    const done = results.filter((r) => r.success).length;
    expect(done).toBeGreaterThan(0);
    expect(done).toBeLessThan(CREATES);
    expect(results[results.length - 1].error).toMatchObject({
      code: 'over-budget',
      message: expect.stringContaining('requestTimeoutMs'),
    });
    expect(await count(h)).toBe(done);
    // The next request has a budget of its own: it succeeds, or (on a machine so loaded that one
    // create and a new connection, the stopped request's was closed, take longer than the budget)
    // runs out of its own budget, not of what was left of the last request's.
    const started = performance.now();
    const [next] = await h.commands([create], token);
    if (!next.success) {
      expect(next.error).toMatchObject({ code: 'over-budget' });
      expect(performance.now() - started).toBeGreaterThanOrEqual(BUDGET_MS);
    }
  });
});

describeEachDatabase('request budgets: hang-ups', (target) => {
  const h = useWorkspace(target);
  let token: string;

  beforeAll(async () => {
    await createType(h);
    token = await userToken(h);
  });

  it('a normal client keeps working: a bulk write of 5,000 creates in one batch, with the default budgets', async () => {
    const before = await count(h);
    const creates = Array.from({ length: 5_000 }, (_, i) => ({
      command: 'svc.entity/create',
      args: { type: T, entity: { 'bg/text': `bulk ${i}` } },
    }));
    const [r] = await h.commands([{ command: 'svc.command/batch', args: { commands: creates } }], token);
    expect(r.success).toBe(true);
    expect(r.result).toHaveLength(5_000);
    expect(await count(h)).toBe(before + 5_000);
  });

  it('a client that hangs up stops its request: no more commands run for it', async () => {
    const before = await count(h);
    const stop = new AbortController();
    const create = { command: 'svc.entity/create', args: { type: T, entity: {} } };
    const sent = fetch(`${h.url}/api/commands`, {
      method: 'POST',
      headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(Array(2_000).fill(create)),
      signal: stop.signal,
    }).catch(() => undefined);
    // Abort once the request has started working.
    for (let i = 0; i < 200 && (await count(h)) === before; i++) await sleep(10);
    stop.abort();
    await sent;
    await sleep(300);
    const after = await count(h);
    await sleep(500);
    expect(await count(h)).toBe(after);
    expect(after - before).toBeLessThan(2_000);
  });

  it('while one request runs thousands of commands, another request is answered before it ends', async () => {
    const before = await count(h);
    const create = { command: 'svc.entity/create', args: { type: T, entity: {} } };
    let bigDone = false;
    const big = h.commands(Array(1_000).fill(create), token).then((r) => {
      bigDone = true;
      return r;
    });
    for (let i = 0; i < 200 && (await count(h)) === before; i++) await sleep(10);
    const [small] = await h.commands([{ command: 'svc.schema/query' }], token);
    expect(small.success).toBe(true);
    expect(bigDone).toBe(false);
    expect((await big).every((r) => r.success)).toBe(true);
  });
});

describeEachDatabase('request budgets: statements', (target) => {
  const h = useWorkspace(target, { budgets: { statementTimeoutMs: 300, maxTextFilters: 100 } });
  let token: string;

  beforeAll(async () => {
    await createType(h);
    token = await userToken(h);
  });

  if (target.name === 'postgres') {
    // A statement long enough to be stopped: 24 text filters over 10,000 rows of 256 characters.
    const slow = (filters = 24) => {
      const where = [
        'q/or',
        ...Array.from({ length: filters }, (_, i) => ['q/contains', ['bg/text'], `$p${i}`]),
      ];
      const params = Object.fromEntries(Array.from({ length: filters }, (_, i) => [`$p${i}`, `zz${i}`]));
      return query({ 'q/select': ['svc/id'], 'q/where': where, 'q/limit': 10 }, params);
    };
    const running = async () =>
      (
        await h.ws.driver.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%strpos%' AND pid <> pg_backend_pid()`,
        )
      ).rows[0]!.n;

    it('a statement past statementTimeoutMs is stopped and answered as over budget', async () => {
      await seed(h, 10_000);
      const [r] = await h.commands([slow()], token);
      expect(r.success).toBe(false);
      expect(r.error).toMatchObject({
        code: 'over-budget',
        status: 400,
        message: expect.stringContaining('statement timeout'),
      });
      // Work outside a request (start-up, workers, in-process callers) has no statement timeout.
      const [inProcess] = await h.ws.execute([slow()]);
      expect(inProcess?.success).toBe(true);
    });

    it('a client that hangs up has its running statement cancelled', async () => {
      await h.ws.close();
      const { startWorkspace } = await import('../src/start-workspace.js');
      h.ws = await startWorkspace({
        database: h.database,
        rateLimit: 0,
        adminToken: h.token,
        webhooks: false,
        log: () => {},
        budgets: { statementTimeoutMs: 0, maxTextFilters: 100 },
      });
      h.url = h.ws.url;
      await seed(h, 30_000);
      const stop = new AbortController();
      const sent = fetch(`${h.url}/api/commands`, {
        method: 'POST',
        headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
        // Many times longer than the wait below: left alone, it would still be running then.
        body: JSON.stringify([slow(96)]),
        signal: stop.signal,
      }).catch(() => undefined);
      for (let i = 0; i < 300 && (await running()) === 0; i++) await sleep(10);
      expect(await running()).toBe(1);
      stop.abort();
      await sent;
      for (let i = 0; i < 100 && (await running()) > 0; i++) await sleep(20);
      expect(await running()).toBe(0);
    });
  } else {
    it('PGlite cannot stop a statement midway: statement_timeout is not honoured there (so sizes are bounded)', async () => {
      await h.ws.driver.exec(`SET statement_timeout = '50ms'`);
      try {
        const { rows } = await h.ws.driver.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM generate_series(1, 2000000)',
        );
        expect(rows[0]!.n).toBe(2_000_000);
      } finally {
        await h.ws.driver.exec('SET statement_timeout = 0');
      }
    });
  }
});

describe('request budgets from the environment', () => {
  it('WEFT_* variables set the budgets and address limits; unset ones keep their defaults', () => {
    const config = configFromEnv({
      WEFT_MAX_COMMANDS: '20',
      WEFT_STATEMENT_TIMEOUT_MS: '0',
      WEFT_UNKNOWN_TOKEN_RATE_LIMIT: '7',
    });
    expect(config.budgets).toEqual({ maxCommands: 20, statementTimeoutMs: 0 });
    expect(config.addressLimits).toEqual({ unknownTokensPerMinute: 7 });
    expect(budgetsFromEnv({})).toEqual({});
    expect(DEFAULT_BUDGETS.maxCommands).toBeGreaterThan(5_000);
  });

  it.each([
    { WEFT_MAX_COMMANDS: '0' },
    { WEFT_MAX_QUERY_NODES: 'lots' },
    { WEFT_REQUEST_TIMEOUT_MS: '-1' },
    { WEFT_PAGE_RATE_LIMIT: '1.5' },
  ])('refuses %j', (env) => {
    expect(() => configFromEnv(env)).toThrow(/WEFT_/);
  });
});
