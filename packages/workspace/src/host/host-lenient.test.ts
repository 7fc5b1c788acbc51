// The host takes what the real service takes (the sync engine's lenient reader), over real HTTP:
// a bare app answers as apps in production do (no `website`, an account field without
// `description`, `title` for `name`, string booleans, `{items}` alone) and one of its fields
// declares a relation cardinality the service does not know. It registers as it is; the bad field
// is left out with a warning on the run naming type and field, and everything else syncs. Its
// messages are a list of HTML parts (array[text] with subType html, as the service's own Intercom
// app sends a conversation's): one rich-text document.
// Runs on PGlite, and on Postgres when WEFT_TEST_DATABASE_URL is set.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../../test/support/databases.js';
import { readDocument } from '../documents/document-store.js';
import { useAnsweringApp } from './fixtures/answering-app.js';
import { startHostedOn } from './fixtures/hosted-on.js';
import type { HostedWorkspace } from './start-hosted-workspace.js';

const answers: Record<string, unknown> = {
  '/': {
    name: 'Loose',
    version: '1',
    description: 'answers as apps in production do',
    sources: [],
    authentication: [
      {
        id: 'token',
        name: 'Token',
        fields: [{ id: 'key', title: 'Key', type: 'password', optional: 'false' }],
      },
    ],
  },
  '/validate': { name: 'Loose account' },
  '/api/v1/synchronizer/config': {
    types: [{ id: 'task' }],
    filters: [{ id: 'q', type: 'text', optional: 'true' }],
  },
  '/api/v1/synchronizer/schema': {
    task: {
      id: { name: 'Id', type: 'id' },
      name: { title: 'Name', type: 'text', readonly: 'true' },
      // A workflow without its states, which the service infers from the values.
      status: { name: 'Status', type: 'text', subType: 'workflow' },
      messages: { name: 'Messages', type: 'array[text]', subType: 'html' },
      owner: {
        name: 'Owner',
        type: 'text',
        relation: {
          cardinality: 'one-to-many',
          name: 'Owner',
          targetType: 'task',
          targetName: 'Owned',
          targetFieldId: 'id',
        },
      },
    },
  },
  '/api/v1/synchronizer/data': {
    items: [
      {
        id: 't1',
        name: 'First',
        owner: 't2',
        status: 'Open',
        messages: ['<p><b>Ann:</b></p><p>Hello</p>', '<p><b>Bo:</b></p><p>Reply</p>'],
      },
      { id: 't2', name: 'Second', owner: 't1', status: 'Done', messages: null },
    ],
  },
};

const app = useAnsweringApp(() => answers);

for (const target of databaseTargets()) {
  describe(`a loose app [${target.name}]`, () => {
    let ws: HostedWorkspace;
    let stopWorkspace: () => Promise<void> = async () => {};
    beforeAll(async () => {
      ({ ws, close: stopWorkspace } = await startHostedOn(target, 'lenient', { jobs: { pollSeconds: 0.5 } }));
    });
    afterAll(async () => {
      await stopWorkspace();
    });

    it('registers as it is and syncs every field but the one it cannot read', async () => {
      const source = await ws.apps.addSource({ url: app.url, fields: { key: 'k' } });
      // What registration took leniently is told with the new source, where it was found.
      expect(source.warnings).toEqual(
        expect.arrayContaining([expect.stringMatching(/^descriptor\.website: missing/)]),
      );
      const run = await ws.apps.sync(source.id, { wait: true });
      expect(run).toMatchObject({ status: 'succeeded', pages: 1, rowsSet: 2 });
      expect(run.error).toContain('schema.task.owner: unknown relation cardinality "one-to-many"');
      expect(run.error).toContain('the field is left out');
      // And what the data pages needed, once per type rather than once per page.
      expect(run.error).toContain('task: data.pagination: missing: read as the last page');
      expect(run.error).toContain(
        'schema.task.status.options: none: the states are inferred from the values',
      );
      const [result] = await ws.execute([
        {
          command: 'svc.entity/query',
          args: {
            query: {
              'q/from': `${source.namespace}/task`,
              'q/select': {
                name: `${source.namespace}/name`,
                status: [`${source.namespace}/status`, 'enum/name'],
                messages: [`${source.namespace}/messages`, 'Collaboration~Documents/secret'],
              },
              'q/limit': 10,
            },
          },
        },
      ]);
      const rows = (result as { result: Record<string, string>[] }).result;
      expect(rows.map((r) => `${r.name} ${r.status}`).sort()).toEqual(['First Open', 'Second Done']);
      const messages = async (name: string) =>
        (await readDocument(ws.driver, rows.find((r) => r.name === name)?.messages, 'html')).content;
      expect(await messages('First')).toBe('<p><b>Ann:</b></p><p>Hello</p>\n<p><b>Bo:</b></p><p>Reply</p>');
      expect(await messages('Second')).toBe('');
    }, 60_000);
  });
}
