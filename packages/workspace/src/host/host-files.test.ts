// Files of synced rows over real HTTP: an app whose file fields hold plain URLs (served by a local
// file server) and app://resource references (served by the app's resource endpoint). The host
// downloads them into the workspace's file storage and attaches them to the row; a later sync with
// the same `__file-key` (or the same URL once its signature is left out) downloads nothing, a file
// no longer sent is detached and deleted, and a failing download is reported on the run without
// failing it. Runs on PGlite, and on Postgres when WEFT_TEST_DATABASE_URL is set.
import { type TestApp, testApp } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../../test/support/databases.js';
import { type FileServer, startFileServer } from './fixtures/file-server.js';
import { type FileboxState, fileboxApp, fileboxState } from './fixtures/filebox-app.js';
import { startHostedOn } from './fixtures/hosted-on.js';
import type { HostedWorkspace } from './start-hosted-workspace.js';

const TOKEN = 'host-files-admin-token';

for (const target of databaseTargets()) {
  describe(`files of synced rows [${target.name}]`, () => {
    let state: FileboxState;
    let app: TestApp;
    let files: FileServer;
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
      const { status, body } = await api('POST', `/api/host/sources/${sourceId}/syncs?wait=true`);
      expect(status).toBe(200);
      expect(body.status, body.error).toBe('succeeded');
      return body as { error: string | null; rowsSet: number };
    }

    /** The files attached to each document, by the document's app id. */
    async function attachments() {
      const { body } = await api('POST', '/api/commands', [
        {
          command: 'svc.entity/query',
          args: {
            query: {
              'q/from': 'filebox/doc',
              'q/select': [
                'filebox/id',
                {
                  'filebox/attachments': {
                    'q/select': ['svc/id', 'svc/name', 'svc/secret', 'svc/content-type'],
                    'q/limit': 'q/no-limit',
                    'q/order-by': [['svc/name', 'q/asc']],
                  },
                },
              ],
              'q/limit': 'q/no-limit',
            },
          },
        },
      ]);
      expect(body[0].success).toBe(true);
      return new Map<string, Record<string, string>[]>(
        body[0].result.map((r: Record<string, any>) => [r['filebox/id'], r['filebox/attachments']]),
      );
    }

    async function download(secret: string) {
      const response = await fetch(`${ws.url}/api/files/${secret}`, {
        headers: { authorization: `Token ${TOKEN}` },
      });
      return { status: response.status, text: await response.text() };
    }

    beforeAll(async () => {
      state = fileboxState();
      app = await testApp(fileboxApp(state));
      files = await startFileServer();
      ({ ws, close: stopWorkspace } = await startHostedOn(target, 'files', {
        adminToken: TOKEN,
      }));
      const added = await api('POST', '/api/host/sources', { url: app.url, types: ['tag', 'doc'] });
      expect(added.status).toBe(201);
      sourceId = added.body.id;
    });
    afterAll(async () => {
      await app?.close();
      await files?.close();
      await stopWorkspace();
    });

    it('downloads plain and app://resource files and attaches them to the row', async () => {
      files.files.set('a.txt', 'contents of a');
      files.files.set('c.txt', 'contents of c');
      state.resources.set('b.txt', 'contents of b from the app');
      state.docs = [
        {
          id: 'd1',
          name: 'First',
          attachments: [
            `${files.url}/files/a.txt?__file-key=key-a&sig=one`,
            'app://resource?name=b.txt&__file-key=key-b',
            `${files.url}/files/c.txt?X-Amz-Signature=one&X-Amz-Expires=60`,
          ],
        },
      ];
      const run = await sync();
      expect(run.error).toBeNull();

      const docs = await attachments();
      const d1 = docs.get('d1') ?? [];
      expect(d1.map((f) => f['svc/name'])).toEqual(['a.txt', 'b.txt', 'c.txt']);
      expect(d1[0]?.['svc/content-type']).toMatch(/^text\/plain/);
      const contents = await Promise.all(d1.map((f) => download(f['svc/secret'] as string)));
      expect(contents.map((c) => c.text)).toEqual([
        'contents of a',
        'contents of b from the app',
        'contents of c',
      ]);
      // The resource request carries the reference's query as params (without the file key)
      // and the account, as the protocol says.
      expect(state.resourceCalls).toHaveLength(1);
      expect(state.resourceCalls[0]?.params).toEqual({ name: 'b.txt' });
      expect(state.resourceCalls[0]?.account).toMatchObject({ auth: 'none' });
    });

    it('keeps files whose key is sent again without downloading them, and detaches the others', async () => {
      const before = (await attachments()).get('d1') ?? [];
      const b = before.find((f) => f['svc/name'] === 'b.txt');
      state.docs = [
        {
          id: 'd1',
          name: 'First',
          attachments: [
            // New temporary URLs of the same files: a new signature, the same key.
            `${files.url}/files/a.txt?__file-key=key-a&sig=two`,
            `${files.url}/files/c.txt?X-Amz-Signature=two&X-Amz-Expires=60`,
          ],
        },
      ];
      await sync();
      expect(files.hits.get('/files/a.txt')).toBe(1);
      expect(files.hits.get('/files/c.txt')).toBe(1);
      const after = (await attachments()).get('d1') ?? [];
      expect(after.map((f) => f['svc/name'])).toEqual(['a.txt', 'c.txt']);
      expect(after.map((f) => f['svc/id'])).toEqual(
        before.filter((f) => f['svc/name'] !== 'b.txt').map((f) => f['svc/id']),
      );
      // The detached file is gone with its contents.
      expect((await download(b?.['svc/secret'] as string)).status).toBe(404);
    });

    it('leaves a row without the field as it is, and empties the field sent empty', async () => {
      state.docs = [{ id: 'd1', name: 'First, renamed' }];
      await sync();
      expect(((await attachments()).get('d1') ?? []).map((f) => f['svc/name'])).toEqual(['a.txt', 'c.txt']);

      state.docs = [{ id: 'd1', name: 'First', attachments: [] }];
      await sync();
      expect((await attachments()).get('d1')).toEqual([]);
    });

    it('reports a failed download on the run, stores the rest, and tries again on the next sync', async () => {
      state.docs = [
        {
          id: 'd2',
          name: 'Second',
          attachments: [`${files.url}/files/late.txt?token=secret-token-value`, `${files.url}/files/a.txt`],
        },
      ];
      const run = await sync();
      expect(run.error).toMatch(/late\.txt/);
      expect(run.error).toMatch(/HTTP 500/);
      expect(run.error).not.toMatch(/secret-token-value/);
      expect(((await attachments()).get('d2') ?? []).map((f) => f['svc/name'])).toEqual(['a.txt']);

      files.files.set('late.txt', 'here now');
      const again = await sync();
      expect(again.error).toBeNull();
      const d2 = (await attachments()).get('d2') ?? [];
      expect(d2.map((f) => f['svc/name'])).toEqual(['a.txt', 'late.txt']);
      expect((await download(d2[1]?.['svc/secret'] as string)).text).toBe('here now');
    });

    it('downloads a few files at a time', async () => {
      for (let i = 0; i < 12; i++) files.files.set(`many-${i}.txt`, `file ${i}`);
      files.maxOpen = 0;
      state.docs = [
        {
          id: 'd3',
          name: 'Many',
          attachments: Array.from({ length: 12 }, (_, i) => `${files.url}/files/many-${i}.txt`),
        },
      ];
      await sync();
      expect((await attachments()).get('d3')).toHaveLength(12);
      expect(files.maxOpen).toBeGreaterThan(0);
      expect(files.maxOpen).toBeLessThanOrEqual(4);
    });

    it('deletes the files of a row the app no longer sends', async () => {
      const d3 = (await attachments()).get('d3') ?? [];
      expect(d3).toHaveLength(12);
      state.docs = [];
      await sync();
      expect((await attachments()).size).toBe(0);
      for (const f of d3.slice(0, 3)) expect((await download(f['svc/secret'] as string)).status).toBe(404);
      const { body } = await api('POST', '/api/commands', [
        {
          command: 'svc.entity/query',
          args: {
            query: { 'q/from': 'svc/file', 'q/select': ['svc/id'], 'q/where': ['q/in', ['svc/id'], '$ids'] },
            params: { $ids: d3.map((f) => f['svc/id']) },
          },
        },
      ]);
      expect(body[0].result).toEqual([]);
    });
  });
}
