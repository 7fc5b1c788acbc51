// Verify, over HTTP: a full sync read into a shadow and compared with what the syncs (a full one,
// then a delta after the upstream changed) left in the workspace. Five apps written to drift are
// each caught, with the kind of drift they make; a correct app is not. A verify is recorded as a
// run and is no sync: the next sync's lastSynchronizedAt is still the last sync's start.
// Runs on PGlite, and on Postgres when WEFT_TEST_DATABASE_URL is set.
import { type TestApp, testApp } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeTracker, type DriftBug, Tracker, trackerApp } from '../../../sync-engine/test/drift-apps.js';
import { databaseTargets } from '../../test/support/databases.js';
import { hostApi } from './fixtures/host-api.js';
import { startHostedOn } from './fixtures/hosted-on.js';
import type { HostedWorkspace } from './start-hosted-workspace.js';

const TOKEN = 'verify-admin-token-5d1e';

/** What each app's verify finds after the change: counts of the task type. */
const EXPECTED: [DriftBug | 'correct', { missing: number; extra: number; changed: number }][] = [
  ['correct', { missing: 0, extra: 0, changed: 0 }],
  ['no-remove', { missing: 0, extra: 1, changed: 0 }],
  ['page-boundary', { missing: 1, extra: 0, changed: 4 }],
  ['margin', { missing: 1, extra: 1, changed: 6 }],
  ['unstable-ids', { missing: 12, extra: 19, changed: 0 }],
  ['quiet-value', { missing: 0, extra: 0, changed: 3 }],
];

for (const target of databaseTargets()) {
  describe(`verify [${target.name}]`, () => {
    let ws: HostedWorkspace;
    let stop: () => Promise<void> = async () => {};
    const served: TestApp[] = [];
    beforeAll(async () => {
      ({ ws, close: stop } = await startHostedOn(target, 'verify', { adminToken: TOKEN }));
    });
    afterAll(async () => {
      for (const s of served) await s.close();
      await stop();
    });
    const api = hostApi(() => ws.url, TOKEN);

    it.each(EXPECTED)(
      'after a delta sync, the %s app: %o',
      async (bug, counts) => {
        const tracker = new Tracker();
        const app = await testApp(trackerApp(tracker, bug === 'correct' ? undefined : bug));
        served.push(app);
        const source = (await api('POST', '/api/host/sources', { url: app.url })).body;
        const full = await ws.apps.sync(source.id, { wait: true });
        expect(full).toMatchObject({ status: 'succeeded', mode: 'full' });
        changeTracker(tracker);
        const delta = await ws.apps.sync(source.id, { wait: true });
        expect(delta).toMatchObject({ status: 'succeeded', mode: 'delta' });

        const verified = await api('POST', `/api/host/sources/${source.id}/verify`);
        expect(verified.status).toBe(200);
        expect(verified.body).toMatchObject({ kind: 'verify', status: 'succeeded' });
        const [task] = verified.body.verify.types;
        expect({ missing: task.missing, extra: task.extra, changed: task.changed }).toEqual(counts);
        expect(verified.body.verify.drifted).toBe(bug !== 'correct');
        expect(verified.body.error === null).toBe(bug === 'correct');

        // Recorded as a run, and no sync: the next delta still starts from the last sync.
        const runs = (await api('GET', `/api/host/sources/${source.id}/runs`)).body as { kind: string }[];
        expect(runs.map((r) => r.kind)).toEqual(['verify', 'manual', 'manual']);
        const next = await ws.apps.sync(source.id, { wait: true });
        expect(next.lastSynchronizedAt).toBe(delta.startedAt);
      },
      60_000,
    );

    it('names the field that differs, with the stored and the app value, as the workspace stores them', async () => {
      const tracker = new Tracker();
      const app = await testApp(trackerApp(tracker, 'quiet-value'));
      served.push(app);
      const source = await ws.apps.addSource({ url: app.url });
      await ws.apps.sync(source.id, { wait: true });
      tracker.batch(() => tracker.renameProject('p1', 'Orchard'));
      await ws.apps.sync(source.id, { wait: true });
      const { body } = await api('POST', `/api/host/sources/${source.id}/verify`);
      expect(body.verify.types[0].samples.changed[0]).toEqual({
        id: 't01',
        fields: ['project'],
        actual: { project: 'Orchard' },
        expected: { project: 'Garden' },
      });
      expect(body.error).toMatch(/^task: 4 changed \(the syncs never updated them: 't01' project; /);
    }, 60_000);

    it('verifies on a schedule (verifyEverySeconds), once per interval, only after a sync', async () => {
      const tracker = new Tracker();
      const app = await testApp(trackerApp(tracker, 'no-remove'));
      served.push(app);
      const source = await ws.apps.addSource({ url: app.url });
      const bad = await api('PATCH', `/api/host/sources/${source.id}`, { verifyEverySeconds: 5 });
      expect(bad).toMatchObject({ status: 400, body: { code: 'bad-request' } });
      const set = await api('PATCH', `/api/host/sources/${source.id}`, { verifyEverySeconds: 3600 });
      expect(set).toMatchObject({ status: 200, body: { verifyEverySeconds: 3600 } });
      const verifies = async () =>
        ((await api('GET', `/api/host/sources/${source.id}/runs`)).body as { kind: string }[]).filter(
          (r) => r.kind === 'verify',
        );
      // Never synced: nothing to verify yet.
      await ws.apps.runDue();
      expect(await verifies()).toHaveLength(0);
      await ws.apps.sync(source.id, { wait: true });
      tracker.batch(() => tracker.remove('t02'));
      await ws.apps.sync(source.id, { wait: true });
      await ws.apps.runDue();
      const [first, ...more] = await verifies();
      expect(more).toHaveLength(0);
      expect(first).toMatchObject({ status: 'succeeded', verify: { drifted: true } });
      // Within the interval: not again.
      await ws.apps.runDue();
      expect(await verifies()).toHaveLength(1);
      const off = await api('PATCH', `/api/host/sources/${source.id}`, { verifyEverySeconds: null });
      expect(off.body.verifyEverySeconds).toBeNull();
    }, 60_000);

    it('answers 404 for an unknown source, and 403 without the admin token', async () => {
      const unknown = await api('POST', '/api/host/sources/00000000-0000-4000-8000-000000000000/verify');
      expect(unknown).toMatchObject({ status: 404, body: { code: 'not-found' } });
      const r = await fetch(`${ws.url}/api/host/sources/x/verify`, { method: 'POST' });
      expect([401, 403]).toContain(r.status);
    });
  });
}
