// A sync run left `running` by a process that stopped (its jobs still `active` until they expire,
// minutes later) does not block the next sync of its source: the run's lease, renewed by its live
// process, lapses; the next sync fails it as stopped and starts. While its process lives, the
// lease holds and a second sync is refused. Two hosts on one database play the two processes.
// Runs on PGlite, and on Postgres when WEFT_TEST_DATABASE_URL is set.
import { auth, defineApp, field } from '@weft/core';
import { type TestApp, testApp } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../../test/support/databases.js';
import { AppHost } from './app-host.js';
import { startHostedOn } from './fixtures/hosted-on.js';
import { LAPSED_MESSAGE } from './run-lease.js';
import { SecretBox } from './secret-box.js';
import type { HostedWorkspace } from './start-hosted-workspace.js';

/** the first data request of each suite waits until released (the run its process leaves behind) */
let release = () => {};
let released = Promise.resolve();
let asked = 0;
function hangFirstRequest(): void {
  asked = 0;
  released = new Promise<void>((r) => (release = r));
}

const app = defineApp({
  id: 'lease',
  name: 'Lease',
  version: '1.0.0',
  description: 'its first page never answers',
  website: 'http://127.0.0.1/',
  authentication: [auth.none({ name: 'None' })],
  sync: {
    types: {
      item: {
        name: 'Items',
        fields: { id: field.id(), name: field.title({ name: 'Name' }) },
        async *data() {
          if (asked++ === 0) await released;
          yield { id: 'a', name: 'A' };
        },
      },
    },
  },
});

let served: TestApp;
beforeAll(async () => {
  served = await testApp(app);
});
afterAll(async () => {
  release();
  await served?.close();
});

const LEASE_SECONDS = 3;

for (const target of databaseTargets()) {
  describe(`a run whose process stopped [${target.name}]`, () => {
    let ws: HostedWorkspace;
    const others: AppHost[] = [];
    /** another process on the same database: its own lease owner */
    const otherProcess = async () => {
      const host = await AppHost.open(ws.apps.workspace, {
        box: new SecretBox('lease-test-key'),
        publicUrl: () => ws.url,
        log: () => {},
        scheduleEveryMs: 0,
        runLeaseSeconds: LEASE_SECONDS,
      });
      others.push(host);
      return host;
    };
    let stopWorkspace: () => Promise<void> = async () => {};
    beforeAll(async () => {
      ({ ws, close: stopWorkspace } = await startHostedOn(target, 'lease', {
        jobs: { pollSeconds: 0.5 },
        hostOptions: { runLeaseSeconds: LEASE_SECONDS, timeoutMs: 120_000 },
      }));
    });
    afterAll(async () => {
      release();
      for (const host of others) await host.close();
      await stopWorkspace();
    });

    it('blocks the next sync while its process lives, then is failed as stopped once it stops', async () => {
      hangFirstRequest();
      const source = await ws.apps.addSource({ url: served.url });
      const left = await ws.apps.sync(source.id);
      const until = Date.now() + 30_000;
      while (asked === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      expect(asked).toBe(1);

      const other = await otherProcess();
      // Longer than the lease: the live first process renewed it meanwhile.
      await new Promise((r) => setTimeout(r, (LEASE_SECONDS + 1) * 1000));
      await expect(other.sync(source.id)).rejects.toMatchObject({ status: 409 });

      // The first process stops without ending its run (its page job stays `active` in its memory).
      await ws.apps.close(false);
      // (In this test the processes share one job queue, whose workers the stop took: a fresh one.)
      await other.close();
      const next = await otherProcess();
      let run: Awaited<ReturnType<AppHost['sync']>> | undefined;
      const deadline = Date.now() + 60_000;
      while (!run && Date.now() < deadline) {
        run = await next.sync(source.id, { wait: true }).catch((error) => {
          if ((error as { status?: number }).status !== 409) throw error;
          return undefined;
        });
        if (!run) await new Promise((r) => setTimeout(r, 250));
      }
      expect(run).toMatchObject({ status: 'succeeded', rowsSet: 1 });
      expect(await next.run(left.id)).toMatchObject({ status: 'failed', error: LAPSED_MESSAGE });
    }, 120_000);

    it('fails a run whose lease lapsed (its process died), or that has none (left by an older weft), for a sync or a verify', async () => {
      const [source] = await ws.apps.list();
      const host = await otherProcess();
      // As a process killed with SIGKILL leaves them: `running`, never renewed again.
      const lapsed = '00000000-0000-4000-8000-000000000001';
      const legacy = '00000000-0000-4000-8000-000000000002';
      await ws.apps.workspace.driver.query(
        `INSERT INTO weft_host_runs (id, source_id, kind, status, lease_owner, lease_until)
         VALUES ($1, $3, 'manual', 'running', 'a-dead-process', clock_timestamp() - interval '1 second'),
                ($2, $3, 'scheduled', 'running', NULL, NULL)`,
        [lapsed, legacy, source!.id],
      );
      expect(await host.sync(source!.id, { wait: true })).toMatchObject({ status: 'succeeded' });
      for (const id of [lapsed, legacy])
        expect(await host.run(id)).toMatchObject({ status: 'failed', error: LAPSED_MESSAGE });

      // Nor does such a run block a verify.
      const stale = '00000000-0000-4000-8000-000000000003';
      await ws.apps.workspace.driver.query(
        `INSERT INTO weft_host_runs (id, source_id, kind, status, lease_owner, lease_until)
         VALUES ($1, $2, 'manual', 'running', 'a-dead-process', clock_timestamp() - interval '1 second')`,
        [stale, source!.id],
      );
      expect(await host.verify(source!.id)).toMatchObject({ kind: 'verify', status: 'succeeded' });
      expect(await host.run(stale)).toMatchObject({ status: 'failed', error: LAPSED_MESSAGE });
    }, 120_000);

    it('ends the leases of a process that stops: the next sync need not wait for them to lapse', async () => {
      const [source] = await ws.apps.list();
      // (The processes of this file share one job queue: those of the tests before would take jobs.)
      for (const host of others.splice(0)) await host.close(false);
      const first = await otherProcess();
      // Leased far longer than this test waits.
      const long = await AppHost.open(ws.apps.workspace, {
        box: new SecretBox('lease-test-key'),
        publicUrl: () => ws.url,
        log: () => {},
        scheduleEveryMs: 0,
        runLeaseSeconds: 600,
      });
      others.push(long);
      hangFirstRequest();
      const left = await long.sync(source!.id);
      const until = Date.now() + 30_000;
      while (asked === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      await expect(first.sync(source!.id)).rejects.toMatchObject({ status: 409 });
      await long.close(false);
      await first.close(false);
      const next = await otherProcess();
      expect(await next.sync(source!.id, { wait: true })).toMatchObject({ status: 'succeeded' });
      expect(await next.run(left.id)).toMatchObject({ status: 'failed', error: LAPSED_MESSAGE });
    }, 120_000);
  });
}
