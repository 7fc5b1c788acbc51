// A change of what the app offers (a new field, a new type) makes the next sync full, as the
// service refreshes an app after a change of its config: the rows synced before get the new
// field's values, where a delta (the app sends nothing changed) would leave them empty. A sync
// asked for as full is full too. Each run says why it is full; the types the app offers that the
// source does not sync are listed. The app "restarts" with a new schema on a new address, as
// under `weft dev` (setUrl).
// Runs on PGlite, and on Postgres when WEFT_TEST_DATABASE_URL is set.
import { auth, defineApp, field } from '@weft/core';
import { type TestApp, testApp } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../../test/support/databases.js';
import { startHostedOn } from './fixtures/hosted-on.js';
import type { HostedWorkspace } from './start-hosted-workspace.js';

const ROWS = [
  { id: 'a', name: 'A' },
  { id: 'b', name: 'B' },
];

/** Version 1: items with a name; 2: and a size; 3: and a second type. A delta sends nothing (nothing changed). */
function version(v: 1 | 2 | 3) {
  const base = { id: field.id(), name: field.title({ name: 'Name' }) };
  const item = {
    name: 'Items',
    delta: true,
    fields: v === 1 ? base : { ...base, size: field.integer({ name: 'Size' }) },
    async *data({ mode }: { mode: 'full' | 'delta' }) {
      if (mode === 'delta') return;
      for (const row of ROWS) yield v === 1 ? row : { ...row, size: 42 };
    },
  };
  const tag = {
    name: 'Tags',
    fields: { id: field.id(), name: field.title({ name: 'Name' }) },
    async *data() {
      yield { id: 't', name: 'T' };
    },
  };
  return defineApp({
    id: 'morph',
    name: 'Morph',
    version: `${v}.0.0`,
    description: 'its schema changes',
    website: 'http://127.0.0.1/',
    authentication: [auth.none({ name: 'None' })],
    sync: { types: v === 3 ? { item, tag } : { item } },
  } as never);
}

const served: TestApp[] = [];
beforeAll(async () => {
  for (const v of [1, 2, 3] as const) served.push(await testApp(version(v)));
});
afterAll(async () => {
  for (const s of served) await s.close();
});

for (const target of databaseTargets()) {
  describe(`a change of the app's schema [${target.name}]`, () => {
    let ws: HostedWorkspace;
    let stopWorkspace: () => Promise<void> = async () => {};
    beforeAll(async () => {
      ({ ws, close: stopWorkspace } = await startHostedOn(target, 'schema-change'));
    });
    afterAll(async () => {
      await stopWorkspace();
    });

    const sizes = async () => {
      const [result] = await ws.execute([
        {
          command: 'svc.entity/query',
          args: {
            query: {
              'q/from': 'morph/item',
              'q/select': ['morph/name', 'morph/size'],
              'q/order-by': [['morph/name', 'q/asc']],
              'q/limit': 'q/no-limit',
            },
          },
        },
      ]);
      expect(result).toMatchObject({ success: true });
      return (result as { result: Record<string, unknown>[] }).result.map((r) => ({
        name: r['morph/name'],
        size: r['morph/size'],
      }));
    };

    it('makes the next sync full, so rows synced before get a new field, and says why', async () => {
      const source = await ws.apps.addSource({ url: served[0]!.url, types: ['item'] });
      expect(await ws.apps.sync(source.id, { wait: true })).toMatchObject({
        status: 'succeeded',
        rowsSet: 2,
      });
      // Nothing changed: a delta, which sends nothing.
      expect(await ws.apps.sync(source.id, { wait: true })).toMatchObject({
        status: 'succeeded',
        mode: 'delta',
        rowsSet: 0,
        fullReason: null,
        typeModes: { item: 'delta' },
      });

      await ws.apps.setUrl(source.id, served[1]!.url);
      expect(await ws.apps.sync(source.id, { wait: true })).toMatchObject({
        status: 'succeeded',
        mode: 'full',
        rowsSet: 2,
        fullReason: "the app's schema changed",
      });
      expect(await sizes()).toEqual([
        { name: 'A', size: 42 },
        { name: 'B', size: 42 },
      ]);
      // The schema is the same as at the last sync again: a delta.
      expect(await ws.apps.sync(source.id, { wait: true })).toMatchObject({
        mode: 'delta',
        fullReason: null,
      });
    }, 120_000);

    it('makes a sync full when asked, and after a new type, which it names as not synced', async () => {
      const [source] = await ws.apps.list();
      const id = source!.id;
      expect(await ws.apps.sync(id, { wait: true, full: true })).toMatchObject({
        status: 'succeeded',
        mode: 'full',
        rowsSet: 2,
        fullReason: 'asked for',
      });
      expect(await ws.apps.unsyncedTypes(id)).toEqual([]);

      await ws.apps.setUrl(id, served[2]!.url);
      expect(await ws.apps.unsyncedTypes(id)).toEqual([{ id: 'tag', name: 'Tags' }]);
      expect(await ws.apps.sync(id, { wait: true })).toMatchObject({
        mode: 'full',
        fullReason: "the app's schema changed",
      });
    }, 120_000);
  });
}
