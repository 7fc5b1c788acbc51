// Every data request of a sync run is recorded with the run, in the workspace's own database:
// the request with the account's secrets redacted (here a password field the app declares, not
// named like a secret), status, duration, items, the reader's warnings, and the app's error body
// (clipped, the passcode it echoes redacted); listeners see the same records as they happen.
// Runs on PGlite, and on Postgres when WEFT_TEST_DATABASE_URL is set.
import { MAX_SUMMARY_TEXT } from '@weft/sync-engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../../test/support/databases.js';
import { PASSCODE, serveExchangeApp } from '../../test/support/exchange-app.js';
import { startHostedOn } from './fixtures/hosted-on.js';
import { type RunExchange, runExchanges } from './run-exchanges.js';
import type { HostedWorkspace } from './start-hosted-workspace.js';

let app: Awaited<ReturnType<typeof serveExchangeApp>>;
beforeAll(async () => {
  app = await serveExchangeApp();
});
afterAll(async () => {
  await app?.close();
});

for (const target of databaseTargets()) {
  describe(`sync run exchanges [${target.name}]`, () => {
    let ws: HostedWorkspace;
    let stop: () => Promise<void> = async () => {};
    beforeAll(async () => {
      ({ ws, close: stop } = await startHostedOn(target, 'exchanges'));
    });
    afterAll(() => stop());

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
    }, 60_000);
  });
}
