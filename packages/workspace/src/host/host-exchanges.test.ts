// Every data request of a sync run is recorded with the run, in the workspace's own database:
// the request with the account's secrets redacted (here a password field the app declares, not
// named like a secret), status, duration, items, the reader's warnings, and the app's error body
// (clipped, the passcode it echoes redacted); listeners see the same records as they happen.
// Runs on PGlite, and on Postgres when WEFT_TEST_DATABASE_URL is set.
import { randomUUID } from 'node:crypto';
import { type Exchange, MAX_SUMMARY_TEXT } from '@weft/sync-engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../../test/support/databases.js';
import { PASSCODE, serveExchangeApp } from '../../test/support/exchange-app.js';
import { startHostedOn } from './fixtures/hosted-on.js';
import { ExchangeRecorder, pruneExchanges, type RunExchange, runExchanges } from './run-exchanges.js';
import { MAX_RUN_EXCHANGES, RUNS_WITH_EXCHANGES } from './run-record-limits.js';
import type { HostedWorkspace } from './start-hosted-workspace.js';

let app: Awaited<ReturnType<typeof serveExchangeApp>>;
beforeAll(async () => {
  app = await serveExchangeApp();
});
afterAll(async () => {
  await app?.close();
});

/** A data request the app answered 200 in `ms`, as the recorder is given it. */
const dataExchange = (ms: number): Exchange => ({
  method: 'POST',
  path: '/api/v1/synchronizer/data',
  status: 200,
  isJson: true,
  ms,
});

for (const target of databaseTargets()) {
  describe(`sync run exchanges [${target.name}]`, () => {
    let ws: HostedWorkspace;
    let stop: () => Promise<void> = async () => {};
    beforeAll(async () => {
      ({ ws, close: stop } = await startHostedOn(target, 'exchanges'));
    });
    afterAll(() => stop());

    /** A finished run of the first source, for a recorder to store exchanges under. */
    async function finishedRun(): Promise<string> {
      const [source] = await ws.apps.list();
      const runId = randomUUID();
      await ws.driver.query(
        `INSERT INTO weft_host_runs (id, source_id, kind, status) VALUES ($1, $2, 'manual', 'succeeded')`,
        [runId, source!.id],
      );
      return runId;
    }

    it('records each page with its redacted request, status, duration, items and warnings', async () => {
      const seen: RunExchange[] = [];
      const off = ws.apps.onExchange((_source, e) => seen.push(e));
      const source = await ws.apps.addSource({
        url: app.url,
        fields: { passcode: PASSCODE },
        types: ['note'],
      });
      const run = await ws.apps.sync(source.id, { wait: true });
      off();
      expect(run.status).toBe('succeeded');
      const rows = await runExchanges(ws.driver, run.id);
      expect(rows.map((r) => [r.type, r.page, r.status, r.items])).toEqual([
        ['note', 1, 200, 2],
        ['note', 2, 200, 1],
      ]);
      for (const r of rows) {
        expect(r.path).toBe('/api/v1/synchronizer/data');
        expect(r.request).toContain('"passcode":"[redacted]"');
        expect(r.request).not.toContain(PASSCODE);
        expect(r.duration_ms).toBeGreaterThanOrEqual(0);
        expect(r.error_body).toBeNull();
      }
      expect(rows[1]?.request).toContain('"pagination":{"page":2}');
      expect(rows[0]?.warnings).toEqual([]);
      expect(rows[1]?.warnings).toEqual(['data.pagination: missing: read as the last page']);
      expect(seen.map((e) => [e.runId, e.page, e.items])).toEqual([
        [run.id, 1, 2],
        [run.id, 2, 1],
      ]);
    }, 60_000);

    it("records a failing page with the app's error body, clipped and redacted", async () => {
      const [source] = await ws.apps.list();
      await ws.apps.updateSource(source!.id, { types: ['bad'] });
      const run = await ws.apps.sync(source!.id, { wait: true });
      expect(run.status).toBe('failed');
      // The run's own error, shown everywhere runs are, has the echoed passcode redacted too.
      expect(run.error).toBe('Sync failed: data of type bad, page 1: The shop refused passcode [redacted]');
      const rows = await runExchanges(ws.driver, run.id);
      // No retry for a 500 that is not tryLater: one exchange.
      expect(rows).toHaveLength(1);
      const [bad] = rows;
      expect(bad).toMatchObject({ type: 'bad', page: 1, status: 500, items: null });
      expect(bad?.error_body).toMatch(/^\{"message":"The shop refused passcode \[redacted\]","detail":"x+/);
      expect(bad?.error_body).not.toContain(PASSCODE);
      expect(bad?.error_body?.length).toBeLessThan(MAX_SUMMARY_TEXT + 40);
      expect(JSON.stringify(rows)).not.toContain(PASSCODE);
      // So has a verify's (a full sync into a shadow) that fails on the same page.
      const verify = await ws.apps.verify(source!.id);
      expect(verify.status).toBe('failed');
      expect(verify.error).toContain('The shop refused passcode [redacted]');
    }, 60_000);

    it('keeps at most MAX_RUN_EXCHANGES per run, for the latest RUNS_WITH_EXCHANGES runs of a source', async () => {
      const [source] = await ws.apps.list();
      const exchange = dataExchange(1);
      const runs: string[] = [];
      // Newer than the runs of the tests above, one second apart.
      for (let i = 1; i <= RUNS_WITH_EXCHANGES + 1; i++) {
        const id = randomUUID();
        runs.push(id);
        await ws.driver.query(
          `INSERT INTO weft_host_runs (id, source_id, kind, status, started_at)
           VALUES ($1, $2, 'manual', 'succeeded', clock_timestamp() + make_interval(secs => $3))`,
          [id, source!.id, i],
        );
      }
      const newest = new ExchangeRecorder(ws.driver, runs.at(-1) as string, []);
      for (let page = 1; page <= MAX_RUN_EXCHANGES + 3; page++)
        newest.add({ type: 'note', page }, exchange, { items: 1 });
      await newest.flush();
      const kept = await runExchanges(ws.driver, runs.at(-1) as string);
      expect(kept).toHaveLength(MAX_RUN_EXCHANGES);
      expect(kept.at(-1)?.page).toBe(MAX_RUN_EXCHANGES);
      for (const id of runs.slice(0, -1)) {
        const one = new ExchangeRecorder(ws.driver, id, []);
        one.add({ type: 'note', page: 1 }, exchange, { items: 1 });
        await one.flush();
      }

      await pruneExchanges(ws.driver, source!.id);
      const { rows } = await ws.driver.query<{ run_id: string }>(
        `SELECT DISTINCT run_id::text AS run_id FROM weft_host_run_exchanges`,
      );
      // The oldest of these and the runs of the tests above lost their exchanges, not their record.
      expect(rows.map((r) => r.run_id).sort()).toEqual(runs.slice(1).sort());
      // two syncs and a verify above, and these
      expect((await ws.apps.runs(source!.id)).length).toBe(RUNS_WITH_EXCHANGES + 4);
    }, 120_000);

    it('stores a batch of exchanges in one statement, each with the time it was added, in order', async () => {
      const runId = await finishedRun();
      const statements: string[] = [];
      const counting = {
        ...ws.driver,
        query: ((sql: string, params?: readonly unknown[]) => {
          statements.push(sql);
          return ws.driver.query(sql, params);
        }) as typeof ws.driver.query,
      };
      const recorder = new ExchangeRecorder(counting, runId, []);
      const exchange = dataExchange(3);
      for (let page = 1; page <= 10; page++) {
        recorder.add({ type: 'note', page }, exchange, { items: page, warnings: [`w${page}`] });
        await new Promise((r) => setTimeout(r, 5));
      }
      await recorder.flush();
      // One statement for the ten (a statement per page cost more than the page's own record).
      expect(statements).toHaveLength(1);
      const rows = await runExchanges(ws.driver, runId);
      expect(rows.map((r) => [r.page, r.items, r.warnings, r.status, r.duration_ms])).toEqual(
        Array.from({ length: 10 }, (_, i) => [i + 1, i + 1, [`w${i + 1}`], 200, 3]),
      );
      // `at` is when each was added (at least 5 ms apart here), not when the batch was stored.
      const at = rows.map((r) => new Date(r.at).getTime());
      expect(at).toEqual([...at].sort((a, b) => a - b));
      expect((at[9] as number) - (at[0] as number)).toBeGreaterThanOrEqual(40);
    });

    it('stores an exchange within a second while its job goes on', async () => {
      const runId = await finishedRun();
      const recorder = new ExchangeRecorder(ws.driver, runId, []);
      const exchange = dataExchange(1);
      recorder.add({ type: 'note', page: 1 }, exchange, { items: 1 });
      // No flush: the page's table shows it while the job is still reading pages.
      await expect
        .poll(async () => (await runExchanges(ws.driver, runId)).length, { timeout: 10_000 })
        .toBe(1);
      await recorder.flush();
    });

    it("fails a webhook event's run with the passcode the app echoes redacted", async () => {
      const [source] = await ws.apps.list();
      const event = await fetch(ws.apps.webhookUrl(source!.id), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ note: 'n9' }),
      });
      expect(event.status).toBe(200);
      const [run] = (await ws.apps.runs(source!.id)).filter((r) => r.kind === 'webhook');
      await ws.apps.waitFor(run!.id);
      const ended = await ws.apps.run(run!.id);
      expect(ended.status).toBe('failed');
      expect(ended.error).toContain('The shop refused the event for passcode [redacted]');
      expect(JSON.stringify(await ws.apps.runs(source!.id))).not.toContain(PASSCODE);
    }, 60_000);
  });
}
