// A sync whose page job never ends (the app never answers, so each try outlives its expiry, as
// when its process dies every time) is not left `running` for ever: once the job's last try has
// expired, pg-boss hands it to the dead-letter queue, and the run is failed with a message that
// says why. The rows of the sync before stay, and the next sync of the source is accepted.
// A webhook event whose job never ends (the app's transform never answers) is failed the same
// way, through the event jobs' own dead letters, and its rows are not written when the app
// answers late.
// Runs on PGlite, and on Postgres when WEFT_TEST_DATABASE_URL is set.
import { auth, defineApp, field } from '@weft/core';
import { type TestApp, testApp } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../../test/support/databases.js';
import { startHostedOn } from './fixtures/hosted-on.js';
import type { HostedWorkspace } from './start-hosted-workspace.js';

/** while set, the app's data endpoint waits until it is released (or the test ends) */
let hang: { released: Promise<void>; release(): void } | undefined;
function hangFromNow(): void {
  let release = () => {};
  const released = new Promise<void>((r) => (release = r));
  hang = { released, release };
}
let asked = 0;
let transforms = 0;

const app = defineApp({
  id: 'stall',
  name: 'Stall',
  version: '1.0.0',
  description: 'stops answering when told',
  website: 'http://127.0.0.1/',
  authentication: [auth.none({ name: 'None' })],
  sync: {
    types: {
      item: {
        name: 'Items',
        fields: { id: field.id(), name: field.title({ name: 'Name' }) },
        async *data() {
          asked++;
          if (hang) await hang.released;
          yield { id: 'a', name: 'A' };
          yield { id: 'b', name: 'B' };
        },
      },
    },
    webhooks: {
      async install() {
        return { id: 'stall-hook', events: ['item.changed'] };
      },
      async uninstall() {},
      async verify() {
        return 'stall-hook';
      },
      async transform({ payload }) {
        transforms++;
        if (hang) await hang.released;
        return { item: [payload as { id: string; name: string }] };
      },
    },
  },
});

let served: TestApp;
let appUrl: string;
beforeAll(async () => {
  served = await testApp(app);
  appUrl = served.url;
});
afterAll(async () => {
  hang?.release();
  await served?.close();
});

for (const target of databaseTargets()) {
  describe(`a sync whose job never ends [${target.name}]`, () => {
    let ws: HostedWorkspace;
    let stopWorkspace: () => Promise<void> = async () => {};
    beforeAll(async () => {
      ({ ws, close: stopWorkspace } = await startHostedOn(target, 'abandoned', {
        // A job counts as abandoned after 1 s, expired jobs are looked for every second, and a
        // sync job is tried twice in all. Its tries never end here, so failing the run does not
        // wait (15 s by default) for them to record their page.
        jobs: { pollSeconds: 0.5, maintenanceSeconds: 1 },
        hostOptions: { jobExpireSeconds: 1, jobRetryLimit: 1, timeoutMs: 120_000, runStopWaitMs: 100 },
      }));
    });
    afterAll(async () => {
      hang?.release();
      hang = undefined;
      await stopWorkspace();
    });

    const count = async () => {
      const [result] = await ws.execute([
        {
          command: 'svc.entity/query',
          args: { query: { 'q/from': 'stall/item', 'q/select': ['svc/id'], 'q/limit': 'q/no-limit' } },
        },
      ]);
      return (result as { result: unknown[] }).result.length;
    };

    it('is failed once its last try expired, keeping the data, and the source syncs again', async () => {
      const source = await ws.apps.addSource({ url: appUrl });
      expect(await ws.apps.sync(source.id, { wait: true })).toMatchObject({
        status: 'succeeded',
        rowsSet: 2,
      });

      hangFromNow();
      asked = 0;
      const stuck = await ws.apps.sync(source.id);
      // While it runs, another sync of the source is refused.
      await expect(ws.apps.sync(source.id)).rejects.toMatchObject({ status: 409 });
      const until = Date.now() + 30_000;
      let [run] = await ws.apps.runs(source.id);
      while (run?.status === 'running' && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 100));
        [run] = await ws.apps.runs(source.id);
      }
      expect(run).toMatchObject({ id: stuck.id, status: 'failed' });
      expect(run?.error).toBe(
        'Sync failed: the job reading item (from page 1) did not end after 2 tries (its process stopped or died each time)',
      );
      // Each try asked the app once: the first, and the one after its expiry.
      expect(asked).toBe(2);
      expect(await count()).toBe(2);

      hang?.release();
      hang = undefined;
      expect(await ws.apps.sync(source.id, { wait: true })).toMatchObject({
        status: 'succeeded',
        rowsSet: 2,
      });
    }, 60_000);

    it('fails a webhook event whose job never ends, and does not write its rows when the app answers late', async () => {
      const [source] = await ws.apps.list();
      const events = async () => (await ws.apps.runs(source!.id)).filter((r) => r.kind === 'webhook');
      hangFromNow();
      transforms = 0;
      const sent = await fetch(ws.apps.webhookUrl(source!.id), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id: 'late', name: 'Too late' }),
      });
      expect(sent.status).toBe(200);
      const until = Date.now() + 30_000;
      let [run] = await events();
      while (run?.status === 'running' && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 100));
        [run] = await events();
      }
      expect(run).toMatchObject({ status: 'failed' });
      expect(run?.error).toBe(
        'Webhook event not applied: its job did not end after 2 tries (its process stopped or died each time)',
      );
      expect(transforms).toBe(2);
      // The app answers now: both tries go on, find their run given up, and write nothing.
      hang?.release();
      hang = undefined;
      await new Promise((r) => setTimeout(r, 1_000));
      expect(await count()).toBe(2);
      expect(await ws.apps.run(run!.id)).toMatchObject({ status: 'failed' });
    }, 60_000);
  });
}
