// A first sync writes a page's creates as one create of rows when every row carries every field
// (write-rows.ts), and as entities when some row leaves a field out: both give the same rows, in
// page order, with a field left out empty. Runs on PGlite, and on Postgres when
// WEFT_TEST_DATABASE_URL is set; the long page goes through COPY there.
import { auth, defineApp, field } from '@weft/core';
import { type TestApp, testApp } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../../test/support/databases.js';
import { COPY_MIN_ROWS } from '../entities/entity-store.js';
import { startHostedOn } from './fixtures/hosted-on.js';
import type { HostedWorkspace } from './start-hosted-workspace.js';

const ROWS = COPY_MIN_ROWS + 10;

const app = defineApp({
  id: 'shapes',
  name: 'Shapes',
  version: '1.0.0',
  description: 'rows of two shapes',
  website: 'http://127.0.0.1/',
  authentication: [auth.none({ name: 'None' })],
  pageSize: ROWS,
  sync: {
    types: {
      // every row carries every field
      full: {
        name: 'Full',
        fields: { id: field.id(), name: field.title({ name: 'Name' }), n: field.integer() },
        async *data() {
          for (let i = 0; i < ROWS; i++) yield { id: `f${i}`, name: `Full ${i}`, n: i };
        },
      },
      // every seventh row leaves `n` out
      mixed: {
        name: 'Mixed',
        fields: { id: field.id(), name: field.title({ name: 'Name' }), n: field.integer() },
        async *data() {
          for (let i = 0; i < ROWS; i++)
            yield i % 7 === 3
              ? { id: `m${i}`, name: `Mixed ${i}` }
              : { id: `m${i}`, name: `Mixed ${i}`, n: i };
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
  await served?.close();
});

for (const target of databaseTargets()) {
  describe(`a first sync's rows [${target.name}]`, () => {
    let ws: HostedWorkspace;
    let stop: () => Promise<void> = async () => {};
    beforeAll(async () => {
      ({ ws, close: stop } = await startHostedOn(target, 'row-shapes'));
    });
    afterAll(async () => {
      await stop();
    });

    const rows = async (type: string) => {
      const [result] = await ws.execute([
        {
          command: 'svc.entity/query',
          args: {
            query: {
              'q/from': `shapes/${type}`,
              'q/select': ['shapes/id', 'shapes/name', 'shapes/n'],
              'q/order-by': [[['svc/creation-date'], 'q/asc']],
              'q/limit': 'q/no-limit',
            },
          },
        },
      ]);
      expect(result?.success).toBe(true);
      return (result as { result: Record<string, unknown>[] }).result;
    };

    it('writes rows of one shape and of several alike, in page order', async () => {
      const source = await ws.apps.addSource({ url: served.url });
      const run = await ws.apps.sync(source.id, { wait: true });
      expect(run).toMatchObject({ status: 'succeeded', rowsSet: 2 * ROWS });
      const full = await rows('full');
      expect(full).toEqual(
        Array.from({ length: ROWS }, (_, i) => ({
          'shapes/id': `f${i}`,
          'shapes/name': `Full ${i}`,
          'shapes/n': i,
        })),
      );
      const mixed = await rows('mixed');
      expect(mixed).toEqual(
        Array.from({ length: ROWS }, (_, i) => ({
          'shapes/id': `m${i}`,
          'shapes/name': `Mixed ${i}`,
          'shapes/n': i % 7 === 3 ? null : i,
        })),
      );
    }, 60_000);
  });
}
