// Several workspace processes on one database: a process killed in the middle of a sync leaves its
// run's page job `active`; once the job expires another process takes it over from that page, with
// nothing lost or duplicated. On PGlite (one process at a time on a data folder) the first
// workspace dies in this process and a second opens the same folder; on Postgres the first is a
// child process killed with SIGKILL.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createServer, silentLogger } from '@weft/core';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { Workspace } from '../workspace.js';
import type { AppHost } from './app-host.js';
import { listenApp, openTakeoverHost, pagedItemsApp } from './fixtures/takeover-host.js';

const PG_URL = process.env.WEFT_TEST_DATABASE_URL;
if (!PG_URL)
  console.log(
    'host takeover test: the Postgres run is skipped because WEFT_TEST_DATABASE_URL is not set (it needs a shared Postgres)',
  );

const N = 60;
const { app, requests } = pagedItemsApp('Slow', N, 150);

const schema = `weft_takeover_${randomBytes(5).toString('hex')}`;
afterAll(async () => {
  if (!PG_URL) return;
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await c.end();
});

describe.runIf(PG_URL)('a sync taken over by another process', () => {
  it('completes from the last page of a killed process, every row once', async () => {
    const server = await new Promise<ReturnType<ReturnType<typeof createServer>['listen']>>((resolve) => {
      const s = createServer(app, { logger: silentLogger }).listen(0, '127.0.0.1', () => resolve(s));
    });
    const appUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(new URL('./fixtures/sync-process.ts', import.meta.url))],
      {
        env: { ...process.env, DATABASE_URL: PG_URL, WEFT_PG_SCHEMA: schema, APP_URL: appUrl },
      },
    );
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const until = Date.now() + 60_000;
    while (!out.includes('page 4') && Date.now() < until && child.exitCode === null)
      await new Promise((r) => setTimeout(r, 20));
    expect(out).toContain('page 4');
    child.kill('SIGKILL');
    await new Promise((r) => child.on('exit', r));
    const pagesBefore = requests.length;

    const { workspace, host } = await openTakeoverHost(
      { kind: 'postgres', url: PG_URL as string, schema },
      'takeover',
    );
    try {
      await expectTakenOver(workspace, host, pagesBefore, until);
    } finally {
      await host.close();
      await workspace.close();
      server.close();
      server.closeAllConnections();
    }
  }, 90_000);
});

describe('a sync taken over after its process died [pglite]', () => {
  it('completes from the page the dead process was reading, every row once', async () => {
    const server = await listenApp(app);
    const dataDir = await mkdtemp(join(tmpdir(), 'weft-takeover-'));
    const until = Date.now() + 60_000;
    try {
      const first = await openTakeoverHost({ kind: 'pglite', dataDir }, 'takeover');
      let pages = 0;
      first.host.onProgress((_id, event) => {
        if (event.kind === 'page') pages++;
      });
      const source = await first.host.addSource({ url: server.url });
      requests.length = 0;
      await first.host.sync(source.id);
      while (pages < 4 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      expect(pages).toBeGreaterThanOrEqual(4);
      // The process dies: its queue writes nothing more (the page job under way stays active),
      // its work stops, its database closes.
      await first.workspace.jobs.stop({ abandon: true });
      await first.host.close();
      await first.workspace.close();
      const pagesBefore = requests.length;

      const second = await openTakeoverHost({ kind: 'pglite', dataDir }, 'takeover');
      try {
        await expectTakenOver(second.workspace, second.host, pagesBefore, until);
      } finally {
        await second.host.close();
        await second.workspace.close();
      }
    } finally {
      server.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});

async function expectTakenOver(workspace: Workspace, host: AppHost, pagesBefore: number, until: number) {
  const [source] = await host.list();
  let run = (await host.runs(source?.id as string))[0];
  expect(run?.status).toBe('running');
  while (run?.status === 'running' && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 100));
    run = (await host.runs(source?.id as string))[0];
  }
  expect(run).toMatchObject({ status: 'succeeded', rowsSet: N, pages: N / 5 });
  // The second process asked only for the pages from the one the dead process was reading.
  const resumedFrom = requests.slice(pagesBefore);
  expect(resumedFrom[0]).toBeGreaterThan(0);
  expect(resumedFrom.length).toBeLessThan(N / 5);
  const [result] = await workspace.execute([
    {
      command: 'svc.entity/query',
      args: { query: { 'q/from': 'slow/item', 'q/select': ['slow/id'], 'q/limit': 'q/no-limit' } },
    },
  ]);
  const ids = (result as { result: { 'slow/id': string }[] }).result.map((r) => r['slow/id']);
  expect(ids).toHaveLength(N);
  expect(new Set(ids).size).toBe(N);
}
