// A first sync makes each new type with its plain fields (and the text kept beside each relation)
// at once, labels included: one schema change per type, one per relation field after it, where
// each field was a change of its own (and a reload of the schema catalog) before.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer, silentLogger } from '@weft/core';
import { expect, it } from 'vitest';
import { describeEachDatabase } from '../../test/support/databases.js';
import { loadCatalog } from '../schema/catalog.js';
import { openWorkspace } from '../workspace.js';
import { AppHost } from './app-host.js';
import { tasksApp } from './fixtures/tasks-app.js';
import { SecretBox } from './secret-box.js';

const app = tasksApp({ id: 'setup', name: 'Setup' });

describeEachDatabase('a first sync sets up its types', (target) => {
  it('each with its plain fields in one schema change, labelled, its relation after', async () => {
    const { database, drop } = await target.create();
    const workspace = await openWorkspace({ database, webhooks: false, log: () => {} });
    const host = await AppHost.open(workspace, {
      box: new SecretBox('setup'),
      publicUrl: () => 'http://127.0.0.1',
      scheduleEveryMs: 0,
      log: () => {},
    });
    const server = await new Promise<Server>((resolve) => {
      const s = createServer(app, { logger: silentLogger }).listen(0, '127.0.0.1', () => resolve(s));
    });
    const version = async () => Number((await loadCatalog(workspace.driver)).version);
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const source = await host.addSource({ url });
      const before = await version();
      expect((await host.sync(source.id, { wait: true })).status).toBe('succeeded');
      // Two types, then the relation's two fields.
      expect((await version()) - before).toBe(4);
      const catalog = await loadCatalog(workspace.driver);
      const task = catalog.type('setup/task');
      const label = (type: string, name: string) => catalog.field(catalog.type(type), name).meta['ui/label'];
      expect(label('setup/task', 'setup/name')).toBe('Summary');
      expect(label('setup/task', 'setup/estimate')).toBe('Estimate Hours');
      expect(label('setup/task', 'setup/due')).toBe('Due');
      expect(label('setup/person', 'setup/email')).toBe('E-mail');
      expect(label('setup/person', 'setup/owned-tasks')).toBe('Owned Tasks');
      const raw = task.fields.find((f) => f.meta['ui/hidden?'] === true);
      expect(raw?.fieldType).toBe('svc/text');
      const [found] = await workspace.execute([
        {
          command: 'svc.entity/query',
          args: {
            query: {
              'q/from': 'setup/task',
              'q/select': ['setup/name', 'setup/estimate', { 'setup/owner': ['setup/email'] }],
            },
          },
        },
      ]);
      expect((found as { result: unknown[] }).result).toEqual([
        {
          'setup/name': 'Write the notes',
          'setup/estimate': 3,
          'setup/owner': { 'setup/email': 'ada@example.org' },
        },
      ]);
      // A second sync changes nothing in the schema.
      const again = await version();
      expect((await host.sync(source.id, { wait: true })).status).toBe('succeeded');
      expect(await version()).toBe(again);
    } finally {
      await host.close();
      await workspace.close();
      await drop();
      server.closeAllConnections();
      server.close();
    }
  }, 60_000);
});
