// The example action app writes back into a real local workspace through the client.
import { type TestApp, testApp } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { followUpApp } from '../examples/follow-up-app.js';
import { createWorkspaceClient, eq, many } from '../src/index.js';
import { useLocalWorkspace } from './support/workspace.js';

const local = useLocalWorkspace({ rateLimit: 3 });
let app: TestApp;
const client = () => createWorkspaceClient({ url: local.url, token: local.token });

beforeAll(async () => {
  app = await testApp(followUpApp);
  const c = client();
  await c.schema.createType({ name: 'Tracker/Project', titleField: 'Tracker/Name', mixins: ['comments'] });
  await c.schema.createType({ name: 'Tracker/Task', titleField: 'Tracker/Name' });
  await c.schema.createRelation(
    { type: 'Tracker/Task', field: 'Tracker/Project' },
    { type: 'Tracker/Project', field: 'Tracker/Tasks', many: true },
  );
});
afterAll(async () => {
  await app.close();
});

describe('example: follow-up action app', () => {
  test('the action creates and links a follow-up and comments on the parent', async () => {
    const c = client();
    const project = await c.entities.create('Tracker/Project', { 'Tracker/Name': 'Launch' });
    const [author] = await c.users.list();
    const account = { workspaceUrl: local.url, apiToken: local.token };
    const { status } = await app.execute(
      'create-follow-up',
      {
        type: 'Tracker/Task',
        titleField: 'Tracker/Name',
        title: 'Write the announcement',
        parentType: 'Tracker/Project',
        parentId: project['svc/id'],
        linkField: 'Tracker/Tasks',
        comment: 'Follow-up created',
        authorId: author!['svc/id'],
      },
      account,
    );
    expect(status).toBe(200);
    const row = await c
      .query('Tracker/Project')
      .select({ Tasks: many('Name') }, { 'comments/comments': many('comment/document-secret') })
      .where(eq('svc/id', project['svc/id']))
      .first();
    expect(row?.Tasks).toEqual([{ Name: 'Write the announcement' }]);
    expect(row?.['comments/comments']).toHaveLength(1);
  });

  test('a refused command becomes an action error carrying the service message, not the token', async () => {
    const account = { workspaceUrl: local.url, apiToken: local.token };
    const { status, body } = await app.execute(
      'create-follow-up',
      {
        type: 'Tracker/Nope',
        titleField: 'Tracker/Name',
        title: 'x',
        parentType: 'Tracker/Project',
        parentId: '00000000-0000-4000-8000-000000000000',
        linkField: 'Tracker/Tasks',
      },
      account,
    );
    expect(status).toBeGreaterThanOrEqual(400);
    expect(JSON.stringify(body)).toContain('Tracker/Nope');
    expect(JSON.stringify(body)).not.toContain(local.token);
  });
});
