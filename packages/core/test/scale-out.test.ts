// Scale-out over real processes: consecutive pages of a large type served by different
// processes (two replicas behind a "load balancer", and the workers of a cluster) give exactly
// the rows of one pass; replicas with different page keys refuse each other's cursors.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import { TOTAL, largeApp } from './fixtures/scale-app.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/scale-app.ts', import.meta.url));
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  }
});

async function start(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
    env: { ...process.env, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  while (!/listening on http:\/\/[^:]+:(\d+)/.test(out)) {
    if (child.exitCode !== null) throw new Error(`fixture exited: ${out}`);
    await once(child.stdout!, 'data');
  }
  const port = Number(/listening on http:\/\/[^:]+:(\d+)/.exec(out)![1]);
  return { port, output: () => out };
}

/** One data page over a new connection, so a load balancer (or the kernel) may pick any process. */
function page(port: number, pagination: unknown): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/api/v1/synchronizer/data',
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => {
          text += c.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ requestedType: 'row', types: ['row'], account: {}, filter: {}, pagination }));
  });
}

async function onePass() {
  const rows: unknown[] = [];
  for await (const batch of largeApp().sync!.types.row.data({} as never)) {
    if (Array.isArray(batch)) rows.push(...batch);
  }
  return rows;
}

async function syncAcross(ports: number[]) {
  const rows: unknown[] = [];
  let pagination: unknown = null;
  for (let n = 0; ; n += 1) {
    const res = await page(ports[n % ports.length]!, pagination);
    expect(res.status).toBe(200);
    rows.push(...res.body.items);
    if (!res.body.pagination.hasNext) return { rows, pages: n + 1 };
    pagination = JSON.parse(JSON.stringify(res.body.pagination.nextPageConfig));
  }
}

describe('scale-out', () => {
  test('two replicas sharing WEFT_PAGE_KEYS, pages alternating between them, equal one pass', async () => {
    const env = { WEFT_PAGE_KEYS: 'shared-replica-key' };
    const [a, b] = await Promise.all([start(env), start(env)]);
    const { rows, pages } = await syncAcross([a.port, b.port]);
    expect(pages).toBe(Math.ceil(TOTAL / 500));
    expect(rows).toEqual(await onePass());
    expect(a.output()).toContain('"route":"data"');
    expect(b.output()).toContain('"route":"data"');
  }, 60_000);

  test('replicas with different keys refuse each other cursors with a 400', async () => {
    const [a, b] = await Promise.all([
      start({ WEFT_PAGE_KEYS: 'key-a' }),
      start({ WEFT_PAGE_KEYS: 'key-b' }),
    ]);
    const first = await page(a.port, null);
    const second = await page(b.port, first.body.pagination.nextPageConfig);
    expect(second.status).toBe(400);
    expect(second.body.message).toContain('not signed by this app');
  }, 60_000);

  test('a cluster of two workers without WEFT_PAGE_KEYS: pages served by both, equal one pass', async () => {
    const env: Record<string, string> = { WEFT_CLUSTER: '1', WEFT_WORKERS: '2', WEFT_PAGE_KEYS: '' };
    const app = await start(env);
    const { rows } = await syncAcross([app.port]);
    expect(rows).toEqual(await onePass());
    const pids = new Set(
      app
        .output()
        .split('\n')
        .filter((line) => line.includes('"route":"data"'))
        .map((line) => /^\{"pid":(\d+)\}/.exec(line)?.[1]),
    );
    expect(pids.size).toBe(2);
  }, 60_000);
});
