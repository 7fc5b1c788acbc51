// The rate budget against a workspace that enforces 3 requests per second per token.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, test } from 'vitest';
import { createWorkspaceClient } from '../src/index.js';
import { requestCounter, useLocalWorkspace } from './support/workspace.js';

describe('rate budget (workspace limit 3/s)', () => {
  const local = useLocalWorkspace({ rateLimit: 3 });

  test('concurrent calls from two clients of one process share the budget: no 429', async () => {
    const counter = requestCounter();
    const options = { url: local.url, token: local.token, maxBatch: 1, onEvent: counter.onEvent };
    const a = createWorkspaceClient(options);
    const b = createWorkspaceClient(options);
    const results = await Promise.all([
      ...Array.from({ length: 5 }, () => a.schema.query()),
      ...Array.from({ length: 5 }, () => b.schema.query()),
    ]);
    expect(results).toHaveLength(10);
    expect(counter.seen.requests).toBe(10);
    expect(counter.seen.rateLimited).toBe(0);
  });

  test('a 429 from the service is honoured: the call waits Retry-After and succeeds', async () => {
    // Spend the token's budget behind the client's back (a plain fetch with the same token).
    await new Promise((r) => setTimeout(r, 1100));
    const spend = () =>
      fetch(`${local.url}/api/tokens`, { headers: { authorization: `Token ${local.token}` } });
    const statuses = (await Promise.all([spend(), spend(), spend(), spend()])).map((r) => r.status);
    expect(statuses).toContain(429);
    const events: string[] = [];
    const client = createWorkspaceClient({
      url: local.url,
      token: local.token,
      budgetStore: new (await import('../src/index.js')).MemoryBudgetStore(),
      onEvent: (e) => events.push(e.type === 'request' ? `${e.status}` : e.type),
    });
    const started = Date.now();
    const tokens = await client.tokens.list();
    expect(tokens.length).toBeGreaterThan(0);
    expect(client.stats.rateLimited).toBe(1);
    expect(events).toEqual(['429', 'rate-limited', '200']);
    // The service said Retry-After: 1 (whole seconds), and the retry waited for it.
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });
});

const PG_URL = process.env.WEFT_TEST_DATABASE_URL;
if (!PG_URL) {
  console.log('client cross-process budget test skipped: WEFT_TEST_DATABASE_URL is not set');
}

describe.runIf(PG_URL)('rate budget shared by two processes through Postgres', () => {
  const schema = `weft_client_${randomBytes(5).toString('hex')}`;
  // The workspace keeps its data (and its own rate counters) in this Postgres schema; the
  // client's budget table sits beside them.
  const local = useLocalWorkspace({ rateLimit: 3, database: { kind: 'postgres', url: PG_URL!, schema } });
  afterAll(async () => {
    const db = new pg.Client({ connectionString: PG_URL });
    await db.connect();
    await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await db.end();
  });

  const child = fileURLToPath(new URL('./support/budget-child.ts', import.meta.url));
  async function runPair(store: 'postgres' | 'memory', calls: number) {
    const env = {
      ...process.env,
      STORE: store,
      CALLS: String(calls),
      WORKSPACE_URL: local.url,
      WORKSPACE_TOKEN: local.token,
      BUDGET_DATABASE_URL: PG_URL,
      BUDGET_TABLE: `${schema}.client_budget`,
    };
    const start = () => {
      const proc = spawn(process.execPath, ['--import', 'tsx', child], {
        env,
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      let out = '';
      proc.stdout.setEncoding('utf8');
      const ready = new Promise<void>((resolve) => {
        proc.stdout.on('data', (chunk: string) => {
          out += chunk;
          if (out.includes('ready\n')) resolve();
        });
      });
      const result = new Promise<{ ok: number; failures: string[]; requests: number; rateLimited: number }>(
        (resolve, reject) => {
          proc.on('error', reject);
          proc.on('close', (code) => {
            if (code !== 0) reject(new Error(`budget child exited with ${code}`));
            else resolve(JSON.parse(out.slice(out.indexOf('ready\n') + 6).trim()));
          });
        },
      );
      return { proc, ready, result };
    };
    const children = [start(), start()];
    await Promise.all(children.map((c) => c.ready));
    for (const c of children) c.proc.stdin.end('go\n');
    return Promise.all([children[0]!.result, children[1]!.result]);
  }

  test('with the Postgres store, two processes with one token see no 429', async () => {
    const [a, b] = await runPair('postgres', 5);
    expect([...a.failures, ...b.failures]).toEqual([]);
    expect(a.ok + b.ok).toBe(10);
    expect(a.rateLimited + b.rateLimited).toBe(0);
  });

  test('control: with a budget per process, the same load meets 429s (and still completes by honouring them)', async () => {
    await new Promise((r) => setTimeout(r, 1100));
    const [a, b] = await runPair('memory', 5);
    expect([...a.failures, ...b.failures]).toEqual([]);
    expect(a.ok + b.ok).toBe(10);
    expect(a.rateLimited + b.rateLimited).toBeGreaterThan(0);
  });
});
