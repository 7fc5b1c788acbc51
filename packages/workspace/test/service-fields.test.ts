import { randomUUID } from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import { describeEachDatabase, typeArgs, useWorkspace } from './support/databases.js';
import { builtinStartStatements, forgetFields } from './support/start-statements.js';

// Fields the service's own types have and clients select: a user's rank and avatars (the rank and
// avatar mixins the service installs on users), a comment's parent (the comment a reply answers).

const T = 'sf/task';

describeEachDatabase("the service's own fields", (target) => {
  const h = useWorkspace(target);
  /** Forgets `fields` of `type`; the next start makes them again (and fills them), the one after nothing. */
  const madeAgainOnce = async (type: string, fields: string[]) => {
    await forgetFields(h, type, fields);
    const [first, second] = await builtinStartStatements(h);
    expect(first!.some((s) => s.startsWith('ALTER TABLE'))).toBe(true);
    expect(second!.some((s) => s.startsWith('ALTER TABLE') || s.startsWith('UPDATE t_'))).toBe(false);
  };

  beforeAll(async () => {
    await h.run('schema.type/create', typeArgs(T));
    await h.run('svc.app/install-mixins', {
      types: { [T]: ['assignments/assignments-mixin', 'comments/comments-mixin', 'avatar/avatar-mixin'] },
    });
  });

  it('users have a rank and avatars, and an assignee query selecting them works', async () => {
    const schema = await h.run('svc.schema/query');
    const users = schema['svc/types'].find((t: any) => t['svc/name'] === 'svc/user');
    expect(users['svc/meta']['app/mixins']).toMatchObject({
      'svc/rank-mixin': true,
      'avatar/avatar-mixin': true,
    });
    const fields = Object.fromEntries(users['svc/fields'].map((f: any) => [f['svc/name'], f]));
    expect(fields['svc/rank']['svc/type']).toBe('svc/rank');
    expect(fields['avatar/avatars']).toMatchObject({
      'svc/type': 'svc/file',
      'svc/meta': { 'svc/collection?': true },
    });
    const task = schema['svc/types'].find((t: any) => t['svc/name'] === T);
    expect(task['svc/fields'].map((f: any) => f['svc/name'])).toContain('avatar/avatars');

    const [admin] = await h.run('svc.entity/query', {
      query: { 'q/from': 'svc/user', 'q/select': ['svc/id'], 'q/limit': 1 },
    });
    const made = await h.run('svc.entity/create', { type: T, entity: { 'sf/name': 'assigned' } });
    await h.run('svc.entity/add-collection-items', {
      type: T,
      field: 'assignments/assignees',
      entity: { 'svc/id': made['svc/id'] },
      items: [{ 'svc/id': admin['svc/id'] }],
    });
    const rows = await h.run('svc.entity/query', {
      query: {
        'q/from': T,
        'q/select': {
          name: 'sf/name',
          assignees: {
            'q/from': 'assignments/assignees',
            'q/select': {
              id: 'svc/id',
              rank: 'svc/rank',
              avatars: { 'q/from': 'avatar/avatars', 'q/select': ['svc/secret'], 'q/limit': 'q/no-limit' },
            },
            'q/limit': 'q/no-limit',
          },
        },
        'q/where': ['=', ['svc/id'], '$id'],
      },
      params: { $id: made['svc/id'] },
    });
    expect(rows).toEqual([
      { name: 'assigned', assignees: [{ id: admin['svc/id'], rank: null, avatars: [] }] },
    ]);
  });

  it('a reply names the comment it answers', async () => {
    const made = await h.run('svc.entity/create', { type: T, entity: { 'sf/name': 'discussed' } });
    const [first, reply] = [randomUUID(), randomUUID()];
    await h.run('svc.entity/create', { type: 'comments/comment', entity: { 'svc/id': first } });
    await h.run('svc.entity/create', {
      type: 'comments/comment',
      entity: { 'svc/id': reply, 'comments/parent': { 'svc/id': first } },
    });
    await h.run('svc.entity/add-collection-items', {
      type: T,
      field: 'comments/comments',
      entity: { 'svc/id': made['svc/id'] },
      items: [{ 'svc/id': first }, { 'svc/id': reply }],
    });
    const [row] = await h.run('svc.entity/query', {
      query: {
        'q/from': T,
        'q/select': {
          comments: {
            'q/from': 'comments/comments',
            'q/select': { id: 'svc/id', 'parent-id': ['comments/parent', 'svc/id'] },
            'q/order-by': [[['svc/creation-date'], 'q/asc']],
            'q/limit': 'q/no-limit',
          },
        },
        'q/where': ['=', ['svc/id'], '$id'],
      },
      params: { $id: made['svc/id'] },
    });
    expect(row.comments).toEqual([
      { id: first, 'parent-id': null },
      { id: reply, 'parent-id': first },
    ]);
  });

  it('a workspace made before they existed gets them at its next start, once', async () => {
    await madeAgainOnce('svc/user', ['svc/rank']);
    const [user] = await h.run('svc.entity/query', {
      query: { 'q/from': 'svc/user', 'q/select': ['svc/rank'], 'q/limit': 1 },
    });
    expect(user).toEqual({ 'svc/rank': null });
  });

  it('spaces made before a space had a title, status, colour and icon get them at the next start, once', async () => {
    await h.run('schema.type/create', typeArgs('Older/Thing'));
    await madeAgainOnce('svc/app', ['svc/title', 'svc/description', 'svc/status', 'svc/color', 'svc/icon']);
    const [space] = await h.run('svc.entity/query', {
      query: {
        'q/from': 'svc/app',
        'q/select': ['svc/name', 'svc/title', 'svc/status', 'svc/color', 'svc/icon'],
        'q/where': ['=', ['svc/name'], '$n'],
      },
      params: { $n: 'Older' },
    });
    expect(space).toEqual({
      'svc/name': 'Older',
      'svc/title': 'Older',
      'svc/status': 'app/installed',
      'svc/color': null,
      'svc/icon': null,
    });
  });

  it("files stored before a file's size had the service's name get it, with the size they have", async () => {
    const form = new FormData();
    form.append('file', new Blob([Buffer.alloc(1234, 7)]), 'old.bin');
    const up = await fetch(`${h.url}/api/files`, {
      method: 'POST',
      headers: { authorization: `Token ${h.token}` },
      body: form,
    });
    expect(up.status).toBe(200);
    const { 'svc/id': id } = (await up.json()) as { 'svc/id': string };
    await madeAgainOnce('svc/file', ['svc/content-length']);
    const [file] = await h.run('svc.entity/query', {
      query: {
        'q/from': 'svc/file',
        'q/select': ['svc/content-length'],
        'q/where': ['=', ['svc/id'], '$id'],
        'q/limit': 1,
      },
      params: { $id: id },
    });
    expect(file).toEqual({ 'svc/content-length': 1234 });
  });
});
