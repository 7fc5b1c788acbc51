// Apps name the workspace's users as the real service does (`field.user()` targets `fibery/user`,
// matched by `user/email`); older apps may say `svc/user`. Either lands on the workspace's own user
// type, in either namespace setting. Runs on PGlite, and on Postgres when WEFT_TEST_DATABASE_URL is set.
import { auth, defineApp, field } from '@weft/core';
import { type TestApp, testApp } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../../test/support/databases.js';
import { startHostedOn } from './fixtures/hosted-on.js';
import type { HostedWorkspace } from './start-hosted-workspace.js';

const TOKEN = 'host-user-relations-admin-token';

function taskApp() {
  return defineApp({
    id: 'tasker',
    name: 'Tasker',
    version: '1.0.0',
    description: 'tasks with an owner and watchers',
    website: 'http://127.0.0.1/',
    authentication: [auth.none({ name: 'None' })],
    sync: {
      types: {
        task: {
          name: 'Tasks',
          fields: {
            id: field.id(),
            name: field.title({ name: 'Title' }),
            owner: field.user({ name: 'Owner', targetName: 'Owned tasks' }),
            watchers: field.user({ name: 'Watchers', targetName: 'Watched', cardinality: 'many-to-many' }),
            reviewer: field.user({ name: 'Reviewer', targetName: 'Reviewing', targetType: 'svc/user' }),
          },
          async *data() {
            yield {
              id: 'a',
              name: 'Write the report',
              owner: 'ada@example.test',
              watchers: ['ada@example.test', 'bob@example.test'],
              reviewer: 'bob@example.test',
            };
          },
        },
      },
    },
  });
}

for (const target of databaseTargets()) {
  for (const namespace of ['svc', 'fibery'] as const) {
    describe(`relations to the workspace's users, namespace ${namespace} [${target.name}]`, () => {
      let app: TestApp;
      let ws: HostedWorkspace;
      let stop: () => Promise<void> = async () => {};
      const n = (name: string) => name.replace(/^svc([./])/, `${namespace}$1`);

      async function api(method: string, path: string, body?: unknown) {
        const response = await fetch(ws.url + path, {
          method,
          headers: { authorization: `Token ${TOKEN}`, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const text = await response.text();
        return { status: response.status, body: text ? JSON.parse(text) : undefined };
      }

      beforeAll(async () => {
        app = await testApp(taskApp());
        ({ ws, close: stop } = await startHostedOn(target, `users-${namespace}`, {
          adminToken: TOKEN,
          namespace,
        }));
      });
      afterAll(async () => {
        await app?.close();
        await stop();
      });

      it('links the e-mails an app sends to the users that have them', async () => {
        const ada = (await ws.createUser({ name: 'Ada', email: 'ada@example.test' })).user['svc/id'];
        const bob = (await ws.createUser({ name: 'Bob', email: 'bob@example.test' })).user['svc/id'];
        const added = await api('POST', '/api/host/sources', { url: app.url, types: ['task'] });
        expect(added.status).toBe(201);
        const synced = await api('POST', `/api/host/sources/${added.body.id}/syncs?wait=true`);
        expect(synced.body.status, synced.body.error).toBe('succeeded');

        const id = n('svc/id');
        const { body } = await api('POST', '/api/commands', [
          {
            command: n('svc.entity/query'),
            args: {
              query: {
                'q/from': 'tasker/task',
                'q/select': [
                  'tasker/name',
                  { 'tasker/owner': [id] },
                  { 'tasker/watchers': { 'q/select': [id], 'q/limit': 'q/no-limit' } },
                  { 'tasker/reviewer': [id] },
                ],
                'q/limit': 'q/no-limit',
              },
            },
          },
          {
            command: n('svc.entity/query'),
            args: {
              query: {
                'q/from': n('svc/user'),
                'q/select': [
                  'user/name',
                  { 'tasker/owned-tasks': { 'q/select': ['tasker/name'], 'q/limit': 'q/no-limit' } },
                ],
                'q/where': ['=', [id], '$ada'],
                'q/limit': 1,
              },
              params: { $ada: ada },
            },
          },
        ]);
        expect(body[0].success, JSON.stringify(body[0])).toBe(true);
        const [task] = body[0].result;
        expect(task['tasker/name']).toBe('Write the report');
        expect(task['tasker/owner']).toEqual({ [id]: ada });
        expect(task['tasker/watchers'].map((w: any) => w[id]).sort()).toEqual([ada, bob].sort());
        expect(task['tasker/reviewer']).toEqual({ [id]: bob });
        expect(body[1].result).toEqual([
          { 'user/name': 'Ada', 'tasker/owned-tasks': [{ 'tasker/name': 'Write the report' }] },
        ]);

        // a second sync keeps the reverse fields it made on the user type, under the same names
        const again = await api('POST', `/api/host/sources/${added.body.id}/syncs?wait=true`);
        expect(again.body.status, again.body.error).toBe('succeeded');
        const schema = await api('POST', '/api/commands', [{ command: n('svc.schema/query'), args: {} }]);
        const users = schema.body[0].result[n('svc/types')].find(
          (t: any) => t[n('svc/name')] === n('svc/user'),
        );
        const reverse = users[n('svc/fields')]
          .map((f: any) => f[n('svc/name')])
          .filter((f: string) => f.startsWith('tasker/'));
        expect(reverse.sort()).toEqual(['tasker/owned-tasks', 'tasker/reviewing', 'tasker/watched']);
      }, 60_000);
    });
  }
}
