import { beforeAll, expect, it } from 'vitest';
import { touchSchema } from '../src/schema/schema-store.js';
import { builtinStartStatements } from './support/start-statements.js';
import { describeEachDatabase, typeArgs, useWorkspace } from './support/databases.js';

// svc/created-by: every type of the workspace's users says who created each entity, as every
// database of the service does (docs/workspace.md, "Who created an entity").

const NOTE = 'cb/note';
const KIND = 'cb/kind_cb/note';

describeEachDatabase('svc/created-by', (target) => {
  const h = useWorkspace(target);
  const uno = { id: '', token: '' };

  beforeAll(async () => {
    const created = await h.ws.createUser({ name: 'Uno', email: 'uno@example.test' });
    uno.id = created.user['svc/id'];
    uno.token = created.token;
    await h.run('svc.schema/batch', {
      commands: [
        {
          command: 'schema.type/create',
          args: typeArgs(NOTE, [['cb/n', 'svc/int']], { 'svc/domain?': true }),
        },
        { command: 'schema.enum/create', args: { 'svc/name': KIND } },
        {
          command: 'schema.field/create',
          args: { 'svc/holder-type': NOTE, 'svc/name': 'cb/kind', 'svc/type': KIND },
        },
      ],
    });
  });

  /** The notes named `prefix…`, each with its creator's id and name (the n8n node's select). */
  const creators = async (prefix: string, token?: string) =>
    (
      await h.run(
        'svc.entity/query',
        {
          query: {
            'q/from': NOTE,
            'q/select': {
              name: ['cb/name'],
              by: { id: ['svc/created-by', 'svc/id'], name: ['svc/created-by', 'user/name'] },
            },
            'q/where': ['q/starts-with', ['cb/name'], '$p'],
            'q/order-by': [[['cb/n'], 'q/asc']],
            'q/limit': 'q/no-limit',
          },
          params: { $p: prefix },
        },
        token,
      )
    ).map((r: { name: string; by: unknown }) => [r.name, r.by]);

  it('is in the schema of every type but the built-in and option types: a read-only to-one to svc/user', async () => {
    const schema = await h.run('svc.schema/query', {});
    const fieldOf = (type: string) =>
      schema['svc/types']
        .find((t: any) => t['svc/name'] === type)
        ['svc/fields'].find((f: any) => f['svc/name'] === 'svc/created-by');
    // As the service's schema shows it: read-only, defaulting to the user asking.
    expect(fieldOf(NOTE)['svc/type']).toBe('svc/user');
    expect(fieldOf(NOTE)['svc/meta']).toEqual({
      'svc/readonly?': true,
      'svc/default-value': { 'svc/id': '$my-id' },
    });
    for (const type of [KIND, 'svc/user', 'svc/file', 'Collaboration~Documents/Document'])
      expect(fieldOf(type), type).toBeUndefined();
    for (const [command, args] of [
      ['schema.field/delete', { 'holder-type': NOTE, name: 'svc/created-by' }],
      ['schema.field/rename', { 'holder-type': NOTE, 'from-name': 'svc/created-by', 'to-name': 'cb/by' }],
    ] as const) {
      const r = await h.attempt(command, args);
      expect(r.success, command).toBe(false);
      expect(r.error.message).toContain('mandatory');
    }
  });

  it('holds the user who created the entity, one at a time and in a long run; a value given is ignored', async () => {
    const someone = '11111111-1111-4111-8111-111111111111';
    const one = await h.run(
      'svc.entity/create',
      { type: NOTE, entity: { 'cb/name': 'one', 'cb/n': 0, 'svc/created-by': { 'svc/id': someone } } },
      uno.token,
    );
    // The answer is the entity as before: the creator is read by a query.
    expect(one).not.toHaveProperty('svc/created-by');
    // A run long enough for COPY, and one short enough for an INSERT.
    for (const [prefix, n] of [
      ['copy', 60],
      ['insert', 3],
    ] as const) {
      await h.run(
        'svc.command/batch',
        {
          commands: Array.from({ length: n }, (_, i) => ({
            command: 'svc.entity/create',
            args: { type: NOTE, entity: { 'cb/name': `${prefix} ${i}`, 'cb/n': i } },
          })),
        },
        uno.token,
      );
    }
    await h.run('svc.entity/create', { type: NOTE, entity: { 'cb/name': 'admin', 'cb/n': 0 } });
    const unoIs = { id: uno.id, name: 'Uno' };
    expect(await creators('one')).toEqual([['one', unoIs]]);
    const copied = await creators('copy', uno.token);
    expect(copied).toHaveLength(60);
    for (const [, by] of copied) expect(by).toEqual(unoIs);
    expect(await creators('insert')).toEqual([0, 1, 2].map((i) => [`insert ${i}`, unoIs]));
    expect(await creators('admin')).toEqual([['admin', { id: h.ws.adminUserId, name: 'Admin' }]]);
    // An update does not change it, and its answer does not show it either.
    const updated = await h.run('svc.entity/update', {
      type: NOTE,
      entity: { 'svc/id': one['svc/id'], 'cb/n': 5, 'svc/created-by': { 'svc/id': h.ws.adminUserId } },
    });
    expect(updated).not.toHaveProperty('svc/created-by');
    expect(await creators('one')).toEqual([['one', unoIs]]);
  });

  it('a relation to users defaulting to {svc/id: $my-id} is set to the user creating the entity', async () => {
    await h.run('schema.field/create', {
      'svc/holder-type': NOTE,
      'svc/name': 'cb/owner',
      'svc/type': 'svc/user',
      'svc/meta': { 'svc/default-value': { 'svc/id': '$my-id' } },
    });
    await h.run(
      'svc.command/batch',
      {
        commands: [
          ...Array.from({ length: 55 }, (_, i) => ({
            command: 'svc.entity/create',
            args: { type: NOTE, entity: { 'cb/name': `owned ${i}`, 'cb/n': 100 + i } },
          })),
        ],
      },
      uno.token,
    );
    await h.run('svc.entity/create', {
      type: NOTE,
      entity: { 'cb/name': 'given', 'cb/n': 100, 'cb/owner': { 'svc/id': uno.id } },
    });
    const owners = async (prefix: string) =>
      (
        await h.run('svc.entity/query', {
          query: {
            'q/from': NOTE,
            'q/select': { owner: ['cb/owner', 'svc/id'] },
            'q/where': ['q/starts-with', ['cb/name'], '$p'],
            'q/limit': 'q/no-limit',
          },
          params: { $p: prefix },
        })
      ).map((r: { owner: string }) => r.owner);
    const owned = await owners('owned');
    expect(owned).toHaveLength(55);
    expect(new Set(owned)).toEqual(new Set([uno.id]));
    // A value given wins over the default (the admin created it, Uno owns it).
    expect(await owners('given')).toEqual([uno.id]);
    await h.run('schema.field/delete', { 'holder-type': NOTE, name: 'cb/owner', 'delete-values?': true });
  });

  it('$my-id is the id of the user asking, unless the query gives it', async () => {
    const mine = async (token: string | undefined, params: Record<string, unknown>) =>
      (
        await h.run(
          'svc.entity/query',
          {
            query: {
              'q/from': NOTE,
              'q/select': ['cb/name'],
              'q/where': ['q/and', ['=', ['svc/created-by', 'svc/id'], '$my-id'], ['=', ['cb/n'], '$n']],
              'q/limit': 'q/no-limit',
            },
            params: { $n: 0, ...params },
          },
          token,
        )
      )
        .map((r: { 'cb/name': string }) => r['cb/name'])
        .sort();
    expect(await mine(uno.token, {})).toEqual(['copy 0', 'insert 0']);
    expect(await mine(undefined, {})).toEqual(['admin']);
    expect(await mine(undefined, { '$my-id': uno.id })).toEqual(['copy 0', 'insert 0']);
    // Another parameter missing is still refused.
    const r = await h.attempt('svc.entity/query', {
      query: { 'q/from': NOTE, 'q/select': ['cb/name'], 'q/where': ['=', ['cb/n'], '$nope'] },
    });
    expect(r.error.message).toContain('$nope');
  });

  it('a user deleted leaves the entities it created without a creator, their other values as they were', async () => {
    const del = await h.ws.createUser({ name: 'Del' });
    const made = await h.run(
      'svc.entity/create',
      { type: NOTE, entity: { 'cb/name': 'by del', 'cb/n': 7 } },
      del.token,
    );
    expect(await creators('by del')).toEqual([['by del', { id: del.user['svc/id'], name: 'Del' }]]);
    await h.run('svc.entity/delete', { type: 'svc/user', entity: { 'svc/id': del.user['svc/id'] } });
    const [after] = await h.run('svc.entity/query', {
      query: {
        'q/from': NOTE,
        'q/select': ['svc/created-by', 'svc/modification-date', 'cb/n'],
        'q/where': ['=', ['svc/id'], '$id'],
      },
      params: { $id: made['svc/id'] },
    });
    expect(after).toEqual({
      'svc/created-by': null,
      'svc/modification-date': made['svc/modification-date'],
      'cb/n': 7,
    });
    // Uno's are untouched.
    expect((await creators('one'))[0]![1]).toEqual({ id: uno.id, name: 'Uno' });
    // Two deleted in one run (a batch of deletes).
    const pair = [await h.ws.createUser({ name: 'Pia' }), await h.ws.createUser({ name: 'Quin' })];
    for (const [i, u] of pair.entries())
      await h.run(
        'svc.entity/create',
        { type: NOTE, entity: { 'cb/name': `by pair ${i}`, 'cb/n': i } },
        u.token,
      );
    await h.run('svc.command/batch', {
      commands: pair.map((u) => ({
        command: 'svc.entity/delete',
        args: { type: 'svc/user', entity: { 'svc/id': u.user['svc/id'] } },
      })),
    });
    // The field itself, which reads the stored id (a path through it finds no user either way).
    const stored = await h.run('svc.entity/query', {
      query: {
        'q/from': NOTE,
        'q/select': ['cb/name', 'svc/created-by'],
        'q/where': ['q/starts-with', ['cb/name'], '$p'],
        'q/order-by': [[['cb/n'], 'q/asc']],
      },
      params: { $p: 'by pair' },
    });
    expect(stored).toEqual([
      { 'cb/name': 'by pair 0', 'svc/created-by': null },
      { 'cb/name': 'by pair 1', 'svc/created-by': null },
    ]);
  });

  it('a workspace made before it existed gets it at its next start: old entities without a creator', async () => {
    const old = (await h.run('svc.entity/create', { type: NOTE, entity: { 'cb/name': 'old', 'cb/n': 0 } }))[
      'svc/id'
    ];
    // The field as a workspace without it had none.
    await h.ws.driver.transaction(async (tx) => {
      const { rows } = await tx.query<{ tbl: string }>(`SELECT tbl FROM svc_types WHERE name = $1`, [NOTE]);
      await tx.query(`ALTER TABLE ${rows[0]!.tbl} DROP COLUMN created_by`);
      await tx.query(`DELETE FROM svc_fields WHERE name = 'svc/created-by'`);
      await touchSchema(tx);
    });
    const gone = await h.attempt('svc.entity/query', {
      query: { 'q/from': NOTE, 'q/select': ['svc/created-by'] },
    });
    expect(gone.success).toBe(false);
    // What a start runs; the second time it finds nothing to add.
    const [first, second] = await builtinStartStatements(h);
    expect(first!.some((s) => s.startsWith('ALTER TABLE'))).toBe(true);
    expect(second!.some((s) => s.startsWith('ALTER TABLE'))).toBe(false);
    const rows = await h.run('svc.entity/query', {
      query: {
        'q/from': NOTE,
        'q/select': { id: ['svc/id'], by: ['svc/created-by'] },
        'q/where': ['=', ['svc/id'], '$id'],
      },
      params: { $id: old },
    });
    expect(rows).toEqual([{ id: old, by: null }]);
    await h.run('svc.entity/create', { type: NOTE, entity: { 'cb/name': 'new', 'cb/n': 0 } }, uno.token);
    expect(await creators('new')).toEqual([['new', { id: uno.id, name: 'Uno' }]]);
  });
});
