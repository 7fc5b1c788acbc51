// Many-to-many relations over real HTTP: when a sync sends a row whose relation lost targets, the
// links no longer sent are removed (by id, and by the target's name through targetFieldId, which
// is resolved once both sides are in); a row that leaves the field out keeps its links; a row that
// sends it empty has none. Runs on PGlite, and on Postgres when WEFT_TEST_DATABASE_URL is set.
import { type TestApp, testApp } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../../test/support/databases.js';
import { type FileboxState, fileboxApp, fileboxState } from './fixtures/filebox-app.js';
import { startHostedOn } from './fixtures/hosted-on.js';
import type { HostedWorkspace } from './start-hosted-workspace.js';

const TOKEN = 'host-links-admin-token';
/** rows of the test that counts statements */
const ROWS = 150;
const TAGS = [
  { id: 't1', name: 'Red' },
  { id: 't2', name: 'Blue' },
  { id: 't3', name: 'Green' },
];

for (const target of databaseTargets()) {
  describe(`many-to-many links of synced rows [${target.name}]`, () => {
    let state: FileboxState;
    let app: TestApp;
    let ws: HostedWorkspace;
    let stopWorkspace: () => Promise<void> = async () => {};
    let sourceId: string;

    async function api(method: string, path: string, body?: unknown) {
      const response = await fetch(ws.url + path, {
        method,
        headers: { authorization: `Token ${TOKEN}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    }

    async function sync() {
      const { body } = await api('POST', `/api/host/sources/${sourceId}/syncs?wait=true`);
      expect(body.status, body.error).toBe('succeeded');
    }

    /** Each document's tags and labels (tag app ids, sorted), and each tag's documents. */
    async function links() {
      const { body } = await api('POST', '/api/commands', [
        {
          command: 'svc.entity/query',
          args: {
            query: {
              'q/from': 'filebox/doc',
              'q/select': [
                'filebox/id',
                { 'filebox/tags': ['filebox/id'] },
                { 'filebox/labels': ['filebox/id'] },
              ],
              'q/limit': 'q/no-limit',
            },
          },
        },
        {
          command: 'svc.entity/query',
          args: {
            query: {
              'q/from': 'filebox/tag',
              'q/select': ['filebox/id', { 'filebox/documents': ['filebox/id'] }],
              'q/limit': 'q/no-limit',
            },
          },
        },
      ]);
      expect(body[0].success && body[1].success).toBe(true);
      const ids = (list: Record<string, string>[]) => list.map((x) => x['filebox/id']).sort();
      const docs = new Map<string, { tags: string[]; labels: string[] }>(
        body[0].result.map((r: Record<string, any>) => [
          r['filebox/id'],
          { tags: ids(r['filebox/tags']), labels: ids(r['filebox/labels']) },
        ]),
      );
      const tags = new Map<string, string[]>(
        body[1].result.map((r: Record<string, any>) => [r['filebox/id'], ids(r['filebox/documents'])]),
      );
      return { docs, tags };
    }

    beforeAll(async () => {
      state = fileboxState();
      app = await testApp(fileboxApp(state));
      ({ ws, close: stopWorkspace } = await startHostedOn(target, 'links', {
        adminToken: TOKEN,
      }));
      const added = await api('POST', '/api/host/sources', { url: app.url, types: ['tag', 'doc'] });
      expect(added.status).toBe(201);
      sourceId = added.body.id;
    });
    afterAll(async () => {
      await app?.close();
      await stopWorkspace();
    });

    it('links the targets sent, by id and by name', async () => {
      state.tags = TAGS;
      state.docs = [
        { id: 'd1', name: 'One', tags: ['t1', 't2'], labels: ['Red', 'Blue'] },
        { id: 'd2', name: 'Two', tags: ['t1'], labels: ['Green'] },
      ];
      await sync();
      const { docs, tags } = await links();
      expect(docs.get('d1')).toEqual({ tags: ['t1', 't2'], labels: ['t1', 't2'] });
      expect(docs.get('d2')).toEqual({ tags: ['t1'], labels: ['t3'] });
      expect(tags.get('t1')).toEqual(['d1', 'd2']);
    });

    it('removes the links a row no longer sends, also to a target new in the same sync', async () => {
      state.tags = [...TAGS, { id: 't4', name: 'Black' }];
      state.docs = [
        { id: 'd1', name: 'One', tags: ['t2', 't4'], labels: ['Blue', 'Black'] },
        { id: 'd2', name: 'Two', tags: ['t1'], labels: ['Green'] },
      ];
      await sync();
      const { docs, tags } = await links();
      expect(docs.get('d1')).toEqual({ tags: ['t2', 't4'], labels: ['t2', 't4'] });
      expect(docs.get('d2')).toEqual({ tags: ['t1'], labels: ['t3'] });
      expect(tags.get('t1')).toEqual(['d2']);
    });

    it('keeps the links of a row that leaves the field out', async () => {
      state.docs = [
        { id: 'd1', name: 'One' },
        { id: 'd2', name: 'Two', tags: ['t1'], labels: ['Green'] },
      ];
      await sync();
      expect((await links()).docs.get('d1')).toEqual({ tags: ['t2', 't4'], labels: ['t2', 't4'] });
    });

    it('removes every link of a row that sends the field empty', async () => {
      state.docs = [
        { id: 'd1', name: 'One', tags: [], labels: null },
        { id: 'd2', name: 'Two', tags: ['t1'], labels: ['Green'] },
      ];
      await sync();
      const { docs, tags } = await links();
      expect(docs.get('d1')).toEqual({ tags: [], labels: [] });
      expect(tags.get('t2')).toEqual([]);
    });

    it('writes a page of rows it holds, their values and links changed, in a few statements, not a few a row', async () => {
      const docsOf = (shift: number) =>
        Array.from({ length: ROWS }, (_, i) => ({
          id: `m${i}`,
          name: `Many ${i + shift}`,
          tags: [TAGS[(i + shift) % 3]!.id],
          labels: [TAGS[(i + shift + 1) % 3]!.name],
        }));
      state.tags = TAGS;
      state.docs = docsOf(0);
      await sync();
      state.docs = docsOf(1);
      const driver = ws.driver as unknown as Record<string, any>;
      const { query, transaction } = driver;
      let statements = 0;
      const counted = (q: Record<string, any>) =>
        new Proxy(q, {
          get: (t, k) => {
            if (k === 'query') statements++;
            return typeof t[k as string] === 'function' ? t[k as string].bind(t) : t[k as string];
          },
        });
      driver.query = (...args: unknown[]) => {
        statements++;
        return query.apply(driver, args);
      };
      driver.transaction = (fn: (tx: unknown) => Promise<unknown>) =>
        transaction.call(driver, (tx: Record<string, any>) => fn(counted(tx)));
      try {
        await sync();
      } finally {
        driver.query = query;
        driver.transaction = transaction;
      }
      const { docs } = await links();
      expect(docs.get('m0')).toEqual({ tags: ['t2'], labels: ['t3'] });
      expect(docs.get(`m${ROWS - 1}`)).toEqual({
        tags: [TAGS[ROWS % 3]!.id],
        labels: [TAGS[(ROWS + 1) % 3]!.id],
      });
      // Made one at a time, the updates and link changes of this sync were 2,331 statements; as
      // runs, 86 (the job queue's and the run's own included).
      expect(statements).toBeLessThan(ROWS);
    });
  });
}
