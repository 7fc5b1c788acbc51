// A sync run's plan (the app's schema answer, the run's types, reverse names, fingerprint) is
// written once, beside the run, and its progress holds only where each type is: so a page's
// record never rewrites the schema. A run an older weft left mid-way, its plan still inside its
// progress, is taken over and finished from there.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { databaseTargets, describeEachDatabase } from '../../test/support/databases.js';
import type { DatabaseOption } from '../db/open-driver.js';
import { listenApp, openTakeoverHost, pagedItemsApp } from './fixtures/takeover-host.js';

const N = 40;

describeEachDatabase('a sync run plan', (target) => {
  it('is written once beside the run; the progress the pages rewrite holds no schema', async () => {
    const server = await listenApp(pagedItemsApp('Plan', N, 0).app);
    const { database, drop } = await target.create();
    const { workspace, host } = await openTakeoverHost(database, 'plan');
    try {
      const source = await host.addSource({ url: server.url });
      const run = await host.sync(source.id, { wait: true });
      expect(run).toMatchObject({
        status: 'succeeded',
        rowsSet: N,
        pages: N / 5,
        typeModes: { item: 'full' },
      });
      const { rows } = await workspace.driver.query<{ progress: Record<string, unknown>; plan: any }>(
        `SELECT r.progress, p.plan FROM weft_host_runs r JOIN weft_host_run_plans p ON p.run_id = r.id WHERE r.id = $1`,
        [run.id],
      );
      expect(Object.keys(rows[0]?.progress ?? {}).sort()).toEqual(['types', 'warnings']);
      expect(rows[0]?.progress.types).toEqual({ item: { done: true, mode: 'full', fresh: true } });
      expect(rows[0]?.plan.typeIds).toEqual(['item']);
      expect(Object.keys(rows[0]?.plan.schema.item).sort()).toEqual(['id', 'name', 'size']);
      // The fingerprint the run's plan held is the source's now.
      const { rows: sources } = await workspace.driver.query<{ f: string | null }>(
        `SELECT schema_fingerprint AS f FROM weft_host_sources WHERE id = $1`,
        [source.id],
      );
      expect(sources[0]?.f).toBe(rows[0]?.plan.fingerprint);
      expect(sources[0]?.f).toEqual(expect.any(String));
    } finally {
      await host.close();
      await workspace.close();
      await drop();
      server.close();
    }
  }, 60_000);
});

for (const target of databaseTargets())
  describe(`a run an older weft left mid-way [${target.name}]`, () => {
    it('is taken over with its plan read from its progress, every row once', async () => {
      const { app, requests } = pagedItemsApp('Plan', N, 100);
      const server = await listenApp(app);
      const dataDir = await mkdtemp(join(tmpdir(), 'weft-plan-'));
      const made = target.name === 'pglite' ? undefined : await target.create();
      const database: DatabaseOption = made ? made.database : { kind: 'pglite', dataDir };
      const until = Date.now() + 60_000;
      try {
        const first = await openTakeoverHost(database, 'plan');
        let pages = 0;
        first.host.onProgress((_id, event) => {
          if (event.kind === 'page') pages++;
        });
        const source = await first.host.addSource({ url: server.url });
        requests.length = 0;
        const started = await first.host.sync(source.id);
        while (pages < 3 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
        expect(pages).toBeGreaterThanOrEqual(3);
        await first.workspace.jobs.stop({ abandon: true });
        await first.host.close();
        // What an older weft wrote: the plan inside the progress, no row of its own.
        await first.workspace.driver.query(
          `UPDATE weft_host_runs r SET progress = r.progress || p.plan FROM weft_host_run_plans p
            WHERE p.run_id = r.id AND r.id = $1`,
          [started.id],
        );
        await first.workspace.driver.query(`DELETE FROM weft_host_run_plans WHERE run_id = $1`, [started.id]);
        await first.workspace.close();
        const pagesBefore = requests.length;

        const second = await openTakeoverHost(database, 'plan');
        try {
          let run = (await second.host.runs(source.id))[0];
          while (run?.status === 'running' && Date.now() < until) {
            await new Promise((r) => setTimeout(r, 100));
            run = (await second.host.runs(source.id))[0];
          }
          expect(run).toMatchObject({ status: 'succeeded', rowsSet: N, pages: N / 5 });
          expect(requests.slice(pagesBefore)[0]).toBeGreaterThan(0);
          const [result] = await second.workspace.execute([
            {
              command: 'svc.entity/query',
              args: { query: { 'q/from': 'plan/item', 'q/select': ['plan/size'], 'q/limit': 'q/no-limit' } },
            },
          ]);
          const sizes = (result as { result: { 'plan/size': number }[] }).result.map((r) => r['plan/size']);
          expect(new Set(sizes).size).toBe(N);
          // Its fingerprint, read from the progress too, is the source's now.
          const { rows } = await second.workspace.driver.query<{ f: string | null }>(
            `SELECT schema_fingerprint AS f FROM weft_host_sources WHERE id = $1`,
            [source.id],
          );
          expect(rows[0]?.f).toEqual(expect.any(String));
        } finally {
          await second.host.close();
          await second.workspace.close();
        }
      } finally {
        server.close();
        await made?.drop();
        await rm(dataDir, { recursive: true, force: true });
      }
    }, 90_000);
  });
