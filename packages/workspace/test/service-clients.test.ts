import { randomUUID } from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import { describeEachDatabase, typeArgs, useWorkspace } from './support/databases.js';
import { touchSchema } from '../src/schema/schema-store.js';
import { builtinStartStatements, forgetFields } from './support/start-statements.js';

// What the service's own clients (fibery-unofficial, its MCP server, its n8n node) send and read,
// beyond the spec's text: docs/workspace.md, "What real clients rely on".

const TEAM = 'rc/team';
const PERSON = 'rc/person';
const STATUS = 'rc/status_rc/person';

describeEachDatabase('answers and inputs as the service clients expect them', (target) => {
  const h = useWorkspace(target);
  let team = '';
  const people: string[] = [];
  let open = '';

  beforeAll(async () => {
    const relation = randomUUID();
    await h.run('svc.schema/batch', {
      commands: [
        { command: 'schema.type/create', args: typeArgs(TEAM) },
        { command: 'schema.type/create', args: typeArgs(PERSON, [['rc/age', 'svc/int']]) },
        {
          command: 'schema.field/create',
          args: {
            'svc/holder-type': PERSON,
            'svc/name': 'rc/team',
            'svc/type': TEAM,
            'svc/meta': { 'svc/relation': relation },
          },
        },
        {
          command: 'schema.field/create',
          args: {
            'svc/holder-type': TEAM,
            'svc/name': 'rc/people',
            'svc/type': PERSON,
            'svc/meta': { 'svc/relation': relation, 'svc/collection?': true },
          },
        },
        { command: 'schema.enum/create', args: { 'svc/name': STATUS } },
        {
          command: 'schema.field/create',
          args: { 'svc/holder-type': PERSON, 'svc/name': 'rc/status', 'svc/type': STATUS },
        },
        {
          command: 'schema.field/create',
          args: {
            'svc/holder-type': PERSON,
            'svc/name': 'rc/bio',
            'svc/type': 'Collaboration~Documents/Document',
            'svc/meta': { 'svc/entity-component?': true },
          },
        },
      ],
    });
    open = (
      await h.run('svc.entity/create', { type: STATUS, entity: { 'enum/name': 'Open', 'svc/rank': 0 } })
    )['svc/id'];
    team = (await h.run('svc.entity/create', { type: TEAM, entity: { 'rc/name': 'Blue' } }))['svc/id'];
    for (const [i, name] of ['Ann', 'Bob', 'Cy'].entries()) {
      const p = await h.run('svc.entity/create', {
        type: PERSON,
        entity: {
          'rc/name': name,
          'rc/age': 30 + i,
          'rc/team': { 'svc/id': team },
          'rc/status': { 'svc/id': open },
        },
      });
      people.push(p['svc/id']);
    }
  });

  /** The names of `type`'s entities matching `where`, in name order. */
  const namesOf = async (type: string, where: unknown, params: Record<string, unknown>) =>
    (
      await h.run('svc.entity/query', {
        query: {
          'q/from': type,
          'q/select': { n: 'rc/name' },
          'q/where': where,
          'q/order-by': [[['rc/name'], 'q/asc']],
        },
        params,
      })
    ).map((r: any) => r.n);

  it('a failed command carries its error under result (and under error)', async () => {
    const [failed] = await h.commands([
      { command: 'svc.entity/create', args: { type: 'rc/nope', entity: {} } },
    ]);
    expect(failed.success).toBe(false);
    // `name` as the service's API docs show it ("stable error code, safe to switch on").
    expect(failed.result).toEqual({
      name: 'entity.error/schema-type-not-found',
      message: expect.any(String),
      code: 'unknown-type',
      status: 400,
    });
    expect(failed.error).toEqual(failed.result);
    const [field] = await h.commands([
      { command: 'svc.entity/query', args: { query: { 'q/from': PERSON, 'q/select': ['rc/nope'] } } },
    ]);
    expect(field.result).toMatchObject({
      name: 'entity.error/schema-field-not-found',
      code: 'unknown-field',
    });
    const [query] = await h.commands([
      { command: 'svc.entity/query', args: { query: { 'q/from': PERSON, 'q/select': [], 'q/limit': 'x' } } },
    ]);
    expect(query.result).toMatchObject({ name: 'weft.error/invalid-query', code: 'invalid-query' });
  });

  it('each inner result of svc.command/batch is {success, result}, nested batches too', async () => {
    const id = randomUUID();
    const [r] = await h.commands([
      {
        command: 'svc.command/batch',
        args: {
          commands: [
            {
              command: 'svc.entity/create',
              args: { type: TEAM, entity: { 'svc/id': id, 'rc/name': 'Red' } },
            },
            {
              command: 'svc.entity/query',
              args: {
                query: {
                  'q/from': TEAM,
                  'q/select': { Name: 'rc/name' },
                  'q/where': ['=', ['svc/id'], '$id'],
                },
                params: { $id: id },
              },
            },
            {
              command: 'svc.command/batch',
              args: {
                commands: [{ command: 'svc.entity/delete', args: { type: TEAM, entity: { 'svc/id': id } } }],
              },
            },
          ],
        },
      },
    ]);
    expect(r.success).toBe(true);
    expect(r.result).toEqual([
      { success: true, result: expect.objectContaining({ 'svc/id': id, 'rc/name': 'Red' }) },
      { success: true, result: [{ Name: 'Red' }] },
      { success: true, result: [{ success: true, result: 'ok' }] },
    ]);
  });

  it('a long run of creates that is the whole batch is answered in the same shape', async () => {
    const entities = Array.from({ length: 300 }, (_, i) => ({ 'rc/name': `bulk ${i}` }));
    const [r] = await h.commands([
      {
        command: 'svc.command/batch',
        args: {
          commands: entities.map((entity) => ({
            command: 'svc.entity/create',
            args: { type: TEAM, entity },
          })),
        },
      },
    ]);
    expect(r.result).toHaveLength(300);
    expect(r.result[299]).toEqual({
      success: true,
      result: expect.objectContaining({ 'rc/name': 'bulk 299', 'svc/id': expect.any(String) }),
    });
    expect(
      r.result.every((e: any) => e.success === true && typeof e.result['svc/public-id'] === 'string'),
    ).toBe(true);
  });

  it('a single command object is answered with a single result; an empty body with []', async () => {
    const single = await h.request('POST', '/api/commands', {
      command: 'svc.entity/query',
      args: {
        query: { 'q/from': TEAM, 'q/select': ['rc/name'], 'q/where': ['=', ['svc/id'], '$t'] },
        params: { $t: team },
      },
    });
    expect(single.status).toBe(200);
    expect(single.body).toEqual({ success: true, result: [{ 'rc/name': 'Blue' }] });
    const bad = await h.request('POST', '/api/commands', { command: 'svc.nope' });
    expect(bad.status).toBe(200);
    expect(bad.body).toMatchObject({ success: false, result: { code: 'unknown-command' } });
    const empty = await fetch(`${h.url}/api/commands`, {
      method: 'POST',
      headers: { authorization: `Token ${h.token}`, 'content-type': 'application/json' },
    });
    expect(empty.status).toBe(200);
    expect(await empty.json()).toEqual([]);
  });

  it('params may be null or absent', async () => {
    const query = { 'q/from': TEAM, 'q/select': ['rc/name'], 'q/where': ['=', ['rc/name'], '$n'] };
    for (const args of [
      { query: { 'q/from': TEAM, 'q/select': ['rc/name'] }, params: null },
      { query: { 'q/from': TEAM, 'q/select': ['rc/name'] } },
    ]) {
      const r = await h.attempt('svc.entity/query', args);
      expect(r.success, JSON.stringify(r)).toBe(true);
    }
    // A query that needs a parameter still says which one is missing.
    const missing = await h.attempt('svc.entity/query', { query, params: null });
    expect(missing.result.message).toMatch(/\$n/);
    expect((await h.attempt('svc.entity/query', { query, params: 'x' })).result.code).toBe('invalid-args');
  });

  it('q/select as an object of aliases: fields, paths, aggregates, sub-queries with a numeric q/limit, nested objects', async () => {
    const [row] = await h.run('svc.entity/query', {
      query: {
        'q/from': TEAM,
        'q/select': {
          Id: 'svc/id',
          Name: ['rc/name'],
          Count: ['q/count', ['rc/people', 'svc/id']],
          Oldest: ['q/max', ['rc/people', 'rc/age']],
          People: {
            'q/from': 'rc/people',
            'q/select': {
              name: ['rc/name'],
              status: ['rc/status', 'enum/name'],
              team: ['rc/team', 'rc/name'],
            },
            'q/order-by': [[['rc/age'], 'q/desc']],
            'q/limit': 2,
          },
          All: { 'q/from': ['rc/people'], 'q/select': ['rc/name'], 'q/limit': 'q/no-limit' },
          None: { 'q/from': 'rc/people', 'q/select': { n: 'rc/name' }, 'q/limit': 0 },
          Nested: { title: 'rc/name', id: ['svc/id'] },
        },
        'q/where': ['=', ['svc/id'], '$t'],
        'q/limit': 1,
      },
      params: { $t: team },
    });
    expect(row).toEqual({
      Id: team,
      Name: 'Blue',
      Count: 3,
      Oldest: 32,
      People: [
        { name: 'Cy', status: 'Open', team: 'Blue' },
        { name: 'Bob', status: 'Open', team: 'Blue' },
      ],
      All: [{ 'rc/name': 'Ann' }, { 'rc/name': 'Bob' }, { 'rc/name': 'Cy' }],
      None: [],
      Nested: { title: 'Blue', id: team },
    });
  });

  it('an alias path reaches a rich-text field’s secret, and ends in a relation as {svc/id}', async () => {
    const [row] = await h.run('svc.entity/query', {
      query: {
        'q/from': PERSON,
        'q/select': {
          Secret: ['rc/bio', 'Collaboration~Documents/secret'],
          Team: 'rc/team',
          Status: ['rc/status'],
        },
        'q/where': ['=', ['svc/id'], '$p'],
      },
      params: { $p: people[0] },
    });
    expect(row.Secret).toMatch(/^[0-9a-f-]{36}$/);
    expect(row.Team).toEqual({ 'svc/id': team });
    expect(row.Status).toEqual({ 'svc/id': open });
  });

  it('the array form keeps its meaning, and now takes a numeric q/limit in a collection sub-query', async () => {
    const [row] = await h.run('svc.entity/query', {
      query: {
        'q/from': TEAM,
        'q/select': ['rc/name', { 'rc/people': { 'q/select': ['rc/name'], 'q/limit': 1 } }],
        'q/where': ['=', ['svc/id'], '$t'],
      },
      params: { $t: team },
    });
    expect(row).toEqual({ 'rc/name': 'Blue', 'rc/people': [{ 'rc/name': 'Ann' }] });
  });

  it("a collection sub-query pages with q/offset, as a mobile client pages an entity's comments", async () => {
    const page = async (offset: number, limit?: number) => {
      const [row] = await h.run('svc.entity/query', {
        query: {
          'q/from': TEAM,
          'q/select': {
            people: {
              'q/from': 'rc/people',
              'q/select': { n: ['rc/name'] },
              'q/order-by': [[['rc/name'], 'q/asc']],
              'q/offset': offset,
              ...(limit === undefined ? {} : { 'q/limit': limit }),
            },
          },
          'q/where': ['=', ['svc/id'], '$t'],
          'q/limit': 1,
        },
        params: { $t: team },
      });
      return (row.people as { n: string }[]).map((p) => p.n);
    };
    expect(await page(0, 2)).toEqual(['Ann', 'Bob']);
    expect(await page(2, 2)).toEqual(['Cy']);
    expect(await page(3, 2)).toEqual([]);
    // Without q/limit: every item from the offset on.
    expect(await page(1)).toEqual(['Bob', 'Cy']);
  });

  it('a query key the language does not have is ignored, as an MCP server sends q/order in every search', async () => {
    const rows = await h.run('svc.entity/query', {
      query: {
        'q/from': PERSON,
        'q/select': { Name: 'rc/name', Id: 'svc/id' },
        'q/limit': 500,
        'q/offset': 0,
        'q/order': ['svc/creation-date', 'desc'],
      },
      params: null,
    });
    expect(rows.map((r: Record<string, unknown>) => r.Name).sort()).toEqual(['Ann', 'Bob', 'Cy']);
    // In a collection sub-query too; the keys it has still work there.
    const [blue] = await h.run('svc.entity/query', {
      query: {
        'q/from': TEAM,
        'q/select': { people: { 'q/from': 'rc/people', 'q/select': ['rc/name'], 'q/limit': 1, 'q/sort': 1 } },
        'q/where': ['=', ['svc/id'], '$t'],
      },
      params: { $t: team },
    });
    expect(blue.people).toHaveLength(1);
  });

  it('a client that writes every key reads and writes as usual: null query keys and args are absent', async () => {
    // As an Android client's serializer writes its requests (explicit nulls, every default).
    const nulls = { query: null, params: null, type: null, entity: null, field: null, items: null };
    const [schema] = (await h.request('POST', '/api/commands', [{ command: 'svc.schema/query', args: null }]))
      .body;
    expect(schema.success).toBe(true);
    const [row] = await h.run('svc.entity/query', {
      ...nulls,
      query: {
        'q/from': TEAM,
        'q/select': {
          name: ['rc/name'],
          people: {
            'q/from': 'rc/people',
            'q/select': { n: ['rc/name'] },
            'q/where': null,
            'q/order-by': [[['rc/name'], 'q/desc']],
            'q/offset': null,
            'q/limit': null,
          },
        },
        'q/where': null,
        'q/order-by': null,
        'q/offset': null,
        'q/limit': 1,
      },
    });
    expect(row).toEqual({ name: 'Blue', people: [{ n: 'Cy' }, { n: 'Bob' }, { n: 'Ann' }] });
    const renamed = await h.run('svc.entity/update', {
      ...nulls,
      type: TEAM,
      entity: { 'svc/id': team, 'rc/name': 'Blue' },
    });
    expect(renamed['rc/name']).toBe('Blue');
  });

  it('{"svc/id": null} clears a to-one relation or a single-select, as a mobile client clears a select', async () => {
    const who = people[2] as string;
    const read = async () =>
      (
        await h.run('svc.entity/query', {
          query: {
            'q/from': PERSON,
            'q/select': { team: ['rc/team', 'svc/id'], status: ['rc/status', 'enum/name'] },
            'q/where': ['=', ['svc/id'], '$p'],
            'q/limit': 1,
          },
          params: { $p: who },
        })
      )[0];
    const cleared = await h.run('svc.entity/update', {
      type: PERSON,
      entity: { 'svc/id': who, 'rc/team': { 'svc/id': null }, 'rc/status': { 'svc/id': null } },
    });
    expect(cleared).toMatchObject({ 'rc/team': null, 'rc/status': null });
    expect(await read()).toEqual({ team: null, status: null });
    // Anything else in the object is still a value to check, and refused.
    const bad = await h.attempt('svc.entity/update', {
      type: PERSON,
      entity: { 'svc/id': who, 'rc/team': { 'svc/id': null, 'rc/name': 'x' } },
    });
    expect(bad.result.code).toBe('invalid-value');
    await h.run('svc.entity/update', {
      type: PERSON,
      entity: { 'svc/id': who, 'rc/team': { 'svc/id': team }, 'rc/status': { 'svc/id': open } },
    });
    expect(await read()).toEqual({ team: team, status: 'Open' });
  });

  it("svc/app lists the spaces (one per namespace of the users' types), as a CLI finds a space's id", async () => {
    const spaces = async () =>
      (
        await h.run('svc.entity/query', {
          query: { 'q/from': 'svc/app', 'q/select': ['svc/id', 'svc/name'], 'q/limit': 'q/no-limit' },
        })
      ).map((r: Record<string, string>) => r['svc/name']);
    // This file's types are all in the space rc; the service's own (svc, user, …) are no space.
    expect(await spaces()).toEqual(['rc']);
    await h.run('svc.schema/batch', {
      commands: [{ command: 'schema.type/create', args: typeArgs('Sales/Deal') }],
    });
    await h.run('schema.type/rename', { 'from-name': 'Sales/Deal', 'to-name': 'CRM/Deal' });
    // A space outlives its types: Sales stays, CRM is made by the rename.
    expect((await spaces()).sort()).toEqual(['CRM', 'Sales', 'rc']);
    // A view is attached to a space by its id.
    const [rc] = await h.run('svc.entity/query', {
      query: {
        'q/from': 'svc/app',
        'q/select': ['svc/id'],
        'q/where': ['=', ['svc/name'], '$n'],
        'q/limit': 1,
      },
      params: { $n: 'rc' },
    });
    expect(rc['svc/id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("what the user may do, as the service's web extension asks: databases by capability, spaces by access", async () => {
    await h.run('svc.schema/batch', {
      commands: [
        { command: 'schema.type/create', args: typeArgs('Ops/Ticket', [], { 'svc/domain?': true }) },
        { command: 'schema.type/create', args: typeArgs('Ops/Scratch') },
      ],
    });
    const uuid = expect.stringMatching(/^[0-9a-f-]{36}$/);
    // The databases (domain types) the user may create in, with the capabilities asked that it has.
    const caps = await h.run('svc.type/query-user-capabilities', {
      capabilities: ['entity.create', 'entity.fly'],
    });
    expect(caps['Ops/Ticket']).toEqual(['entity.create']);
    expect(caps).not.toHaveProperty('Ops/Scratch');
    expect(caps).not.toHaveProperty('svc/user');
    expect(await h.run('svc.type/query-user-capabilities', { capabilities: ['entity.fly'] })).toEqual({});
    expect((await h.run('svc.type/query-user-capabilities', {}))['Ops/Ticket']).toEqual([
      'entity.read',
      'entity.create',
      'entity.update',
      'entity.delete',
    ]);
    const bad = await h.attempt('svc.type/query-user-capabilities', { capabilities: 'entity.create' });
    expect(bad.success).toBe(false);
    expect(bad.error.code).toBe('invalid-args');
    // The spaces: an admin configures them; another user edits their entities, on the same databases.
    const apps = await h.run('svc.app/get-available-apps', {});
    expect(apps).toContainEqual({ 'app-id': uuid, 'app-namespace': 'Ops', access: 'access/type.creator' });
    const other = await h.ws.createUser({ name: 'Cap', email: 'cap@example.test' });
    const asOther = async (command: string, args: unknown) =>
      (await h.request('POST', '/api/commands', [{ command, args }], other.token)).body[0].result;
    expect(await asOther('svc.app/get-available-apps', {})).toContainEqual({
      'app-id': apps.find((a: Record<string, string>) => a['app-namespace'] === 'Ops')['app-id'],
      'app-namespace': 'Ops',
      access: 'access/type.editor',
    });
    expect(
      (await asOther('svc.type/query-user-capabilities', { capabilities: ['entity.create'] }))['Ops/Ticket'],
    ).toEqual(['entity.create']);
  });

  it("a space's lifecycle as the service's page sends it: save and install, uninstall and delete", async () => {
    const id = randomUUID();
    const save = {
      command: 'svc.app/save',
      args: {
        app: {
          'svc/id': id,
          'svc/name': 'Road Map',
          'svc/namespace': 'Road Map',
          'svc/version': '1.0.0',
          'svc/color': '#F7D130',
          'svc/status': 'app/installed',
          'svc/schema': { 'svc/name': 'Road Map', 'svc/types': [] },
        },
      },
    };
    const install = { command: 'svc.app/install', args: { name: 'Road Map', version: '1.0.0' } };
    expect(await h.run('svc.command/batch', { commands: [save, install] })).toEqual([
      { 'svc/id': id, 'svc/name': 'Road Map' },
      'ok',
    ]);
    // Saved again: the same space.
    expect(await h.run('svc.app/save', { app: { 'svc/name': 'Road Map' } })).toEqual({
      'svc/id': id,
      'svc/name': 'Road Map',
    });
    // Listed as the page lists spaces: what the save gave, and what an update changes.
    const looks = async () =>
      (
        await h.run('svc.entity/query', {
          query: {
            'q/from': 'svc/app',
            'q/select': {
              'svc/id': ['svc/id'],
              'svc/name': ['svc/name'],
              'svc/title': ['svc/title'],
              'svc/status': ['svc/status'],
              'svc/color': ['svc/color'],
              'svc/icon': ['svc/icon'],
            },
            'q/where': ['=', ['svc/id'], '$id'],
            'q/limit': 100,
          },
          params: { $id: id },
        })
      )[0];
    expect(await looks()).toEqual({
      'svc/id': id,
      'svc/name': 'Road Map',
      'svc/title': 'Road Map',
      'svc/status': 'app/installed',
      'svc/color': '#F7D130',
      'svc/icon': null,
    });
    expect(await h.run('svc.app/update', { 'svc/id': id, 'svc/icon': 'star', 'svc/color': '#000000' })).toBe(
      'ok',
    );
    expect(await looks()).toMatchObject({
      'svc/color': '#000000',
      'svc/icon': 'star',
      'svc/title': 'Road Map',
    });
    const badIcon = await h.attempt('svc.app/update', { 'svc/id': id, 'svc/icon': 5 });
    expect(badIcon.error.code).toBe('invalid-args');
    expect(badIcon.error.message).toContain('(svc/icon: ');
    const listed = async () =>
      (
        await h.run('svc.entity/query', {
          query: { 'q/from': 'svc/app', 'q/select': ['svc/id', 'svc/name'], 'q/limit': 'q/no-limit' },
        })
      ).filter((r: Record<string, string>) => r['svc/name'] === 'Road Map');
    expect(await listed()).toEqual([{ 'svc/id': id, 'svc/name': 'Road Map' }]);
    // A database made in it belongs to it; the space is not deleted while it holds one.
    await h.run('schema.type/create', typeArgs('Road Map/Milestone'));
    const held = await h.attempt('svc.app/delete', { 'svc/id': id });
    expect(held.error).toMatchObject({ code: 'not-empty', status: 409 });
    expect(held.error.message).toContain('Road Map/Milestone');
    await h.run('schema.type/delete', { name: 'Road Map/Milestone', 'delete-entities?': true });
    expect(await h.run('svc.app/uninstall', { 'svc/id': id })).toBe('ok');
    expect(await h.run('svc.app/delete', { 'svc/id': id })).toBe('ok');
    expect(await listed()).toEqual([]);
    expect((await h.attempt('svc.app/delete', { 'svc/id': id })).error.status).toBe(404);
    expect((await h.attempt('svc.app/install', { name: 'Nowhere' })).error.status).toBe(404);
    // Refused: a name a type could not be in, the service's own namespaces, another user.
    expect((await h.attempt('svc.app/save', { app: { 'svc/name': 'a/b' } })).error.code).toBe('invalid-args');
    expect((await h.attempt('svc.app/save', { app: { 'svc/name': 'svc' } })).error.code).toBe('invalid-args');
    expect((await h.attempt('svc.app/save', { app: {} })).error.code).toBe('invalid-args');
    const other = await h.ws.createUser({ name: 'Spacer', email: 'spacer@example.test' });
    const [refused] = (
      await h.request(
        'POST',
        '/api/commands',
        [{ command: 'svc.app/save', args: { app: { 'svc/name': 'X' } } }],
        other.token,
      )
    ).body;
    expect(refused.error.status).toBe(403);
  });

  it('URL and colour fields, as the service lists its primitive types and its clients make them', async () => {
    // A schema read from the service has fields of type fibery/url (a Notion import's links) and
    // an option's enum/color of type fibery/color; both hold text.
    await h.run('svc.schema/batch', {
      commands: [
        { command: 'schema.type/create', args: typeArgs('rc/link') },
        {
          command: 'schema.field/create',
          args: { 'svc/holder-type': 'rc/link', 'svc/name': 'rc/url', 'svc/type': 'svc/url' },
        },
        {
          command: 'schema.field/create',
          args: { 'svc/holder-type': 'rc/link', 'svc/name': 'rc/shade', 'svc/type': 'svc/color' },
        },
      ],
    });
    const created = await h.run('svc.entity/create', {
      type: 'rc/link',
      entity: { 'rc/name': 'Docs', 'rc/url': 'https://example.test/docs', 'rc/shade': '#4a4a4a' },
    });
    expect(created).toMatchObject({ 'rc/url': 'https://example.test/docs', 'rc/shade': '#4a4a4a' });
    const found = await h.run('svc.entity/query', {
      query: {
        'q/from': 'rc/link',
        'q/select': ['rc/name', 'rc/url', 'rc/shade'],
        'q/where': ['q/contains', ['rc/url'], '$part'],
        'q/limit': 10,
      },
      params: { $part: 'EXAMPLE.test' },
    });
    expect(found).toEqual([
      { 'rc/name': 'Docs', 'rc/url': 'https://example.test/docs', 'rc/shade': '#4a4a4a' },
    ]);
    // They hold text only.
    const refused = await h.attempt('svc.entity/create', {
      type: 'rc/link',
      entity: { 'rc/name': 'Bad', 'rc/url': 42 },
    });
    expect(refused).toMatchObject({ success: false, error: { code: 'invalid-value' } });
    const schema = await h.run('svc.schema/query');
    const primitives = schema['svc/types']
      .filter((t: { 'svc/meta': Record<string, unknown> }) => t['svc/meta']['svc/primitive?'] === true)
      .map((t: { 'svc/name': string }) => t['svc/name']);
    expect(primitives).toEqual(expect.arrayContaining(['svc/url', 'svc/color']));
  });

  it("an option has a colour and an icon (enum/color, enum/icon), as every option type of the service's has", async () => {
    const red = await h.run('svc.entity/create', {
      type: STATUS,
      entity: { 'enum/name': 'Blocked', 'svc/rank': 9, 'enum/color': '#d40915', 'enum/icon': '⛔' },
    });
    const [read] = await h.run('svc.entity/query', {
      query: {
        'q/from': STATUS,
        'q/select': ['enum/name', 'enum/color', 'enum/icon'],
        'q/where': ['=', ['svc/id'], '$id'],
        'q/limit': 1,
      },
      params: { $id: red['svc/id'] },
    });
    expect(read).toEqual({ 'enum/name': 'Blocked', 'enum/color': '#d40915', 'enum/icon': '⛔' });
    // A workflow's states have them too.
    await h.run('svc.schema/batch', {
      commands: [{ command: 'schema.type/create', args: typeArgs('rc/ticket') }],
    });
    await h.run('svc.app/install-mixins', { types: { 'rc/ticket': ['workflow/workflow'] } });
    const schema = await h.run('svc.schema/query');
    const fieldsOf = (name: string) =>
      schema['svc/types']
        .find((t: { 'svc/name': string }) => t['svc/name'] === name)
        ['svc/fields'].map(
          (f: { 'svc/name': string; 'svc/type': string }) => `${f['svc/name']} ${f['svc/type']}`,
        );
    for (const type of [STATUS, 'workflow/state_rc/ticket']) {
      expect(fieldsOf(type)).toEqual(expect.arrayContaining(['enum/color svc/color', 'enum/icon svc/emoji']));
      // Its meta as the service's schema shows every option type's.
      const meta = schema['svc/types'].find((t: { 'svc/name': string }) => t['svc/name'] === type)[
        'svc/meta'
      ];
      expect(meta).toMatchObject({
        'svc/enum?': true,
        'svc/type-component?': true,
        'app/mixins': { 'svc/rank-mixin': true },
      });
    }
  });

  it('an option type made before options had a colour and an icon gets them at the next start', async () => {
    const OLD = 'rc/kind_rc/person';
    await h.run('schema.enum/create', { 'svc/name': OLD });
    // The fields and meta as an older workspace's option type had none.
    await forgetFields(h, OLD, ['enum/color', 'enum/icon'], { 'svc/enum?': true });
    const lacking = await h.attempt('svc.entity/create', {
      type: OLD,
      entity: { 'enum/name': 'Lead', 'enum/color': '#123456' },
    });
    expect(lacking.success).toBe(false);
    // What a start runs; the second time it finds nothing to add.
    const [first, second] = await builtinStartStatements(h);
    expect(first!.filter((sql) => sql.startsWith('ALTER TABLE'))).toHaveLength(2);
    expect(second!.some((sql) => sql.startsWith('ALTER TABLE') || sql.startsWith('UPDATE svc_types'))).toBe(
      false,
    );
    const made = await h.run('svc.entity/create', {
      type: OLD,
      entity: { 'enum/name': 'Lead', 'enum/color': '#123456', 'enum/icon': '🌱' },
    });
    expect(made).toMatchObject({ 'enum/color': '#123456', 'enum/icon': '🌱' });
    const schema = await h.run('svc.schema/query');
    expect(
      schema['svc/types'].find((t: { 'svc/name': string }) => t['svc/name'] === OLD)['svc/meta'],
    ).toMatchObject({
      'svc/enum?': true,
      'svc/type-component?': true,
      'app/mixins': { 'svc/rank-mixin': true },
    });
  });

  it("the user type is a domain type, as the service's is; one made before becomes one at its next start, once", async () => {
    const userMeta = async () =>
      (await h.run('svc.schema/query'))['svc/types'].find(
        (t: { 'svc/name': string }) => t['svc/name'] === 'svc/user',
      )['svc/meta'];
    expect(await userMeta()).toMatchObject({ 'svc/domain?': true, 'svc/platform?': true });
    // The user type as an older workspace had it.
    await h.ws.driver.transaction(async (tx) => {
      await tx.query(
        `UPDATE svc_types SET meta = (meta - 'svc/platform?') || '{"svc/domain?": false}' WHERE name = 'svc/user'`,
      );
      await touchSchema(tx);
    });
    expect(await userMeta()).toMatchObject({ 'svc/domain?': false });
    const [first, second] = await builtinStartStatements(h);
    expect(first!.some((sql) => sql.startsWith('UPDATE svc_types'))).toBe(true);
    expect(second!.some((sql) => sql.startsWith('UPDATE svc_types'))).toBe(false);
    expect(await userMeta()).toMatchObject({ 'svc/domain?': true, 'svc/platform?': true });
    // What an admin sets since is left as it is by later starts.
    await h.run('svc.schema/batch', {
      commands: [
        { command: 'schema.type/set-meta', args: { name: 'svc/user', key: 'svc/domain?', value: false } },
      ],
    });
    await builtinStartStatements(h, 1);
    expect(await userMeta()).toMatchObject({ 'svc/domain?': false });
  });

  it('bad object selects are refused as invalid queries', async () => {
    for (const select of [
      { A: ['rc/people', 'rc/name'] },
      { A: { 'q/from': 'rc/name', 'q/select': ['svc/id'] } },
      { A: { 'q/from': 'rc/people', 'q/select': ['rc/name'], 'q/limit': -1 } },
      { A: { 'q/from': 'rc/people', 'q/select': ['rc/name'], 'q/limit': 'lots' } },
      { A: { 'q/from': 'rc/people', 'q/select': ['rc/name'], 'q/offset': -1 } },
      { A: { 'q/from': 'rc/people', 'q/select': ['rc/name'], 'q/offset': '2' } },
      { A: 5 },
      { A: [] },
      { A: ['rc/nope'] },
    ]) {
      const r = await h.attempt('svc.entity/query', { query: { 'q/from': TEAM, 'q/select': select } });
      expect(r.success, JSON.stringify(select)).toBe(false);
      expect(r.result.code, JSON.stringify(select)).toMatch(/invalid-query|unknown-field/);
    }
  });

  it('GET /api/schema answers the schema object, each type and field with svc/deleted? false, and an ETag', async () => {
    const res = await h.request('GET', '/api/schema?with-description=true&with-soft-deleted=false');
    expect(res.status).toBe(200);
    const viaCommand = await h.run('svc.schema/query', { 'with-description?': true });
    expect(res.body).toEqual(viaCommand);
    const person = res.body['svc/types'].find((t: any) => t['svc/name'] === PERSON);
    expect(person['svc/deleted?']).toBe(false);
    expect(person).toHaveProperty('svc/description');
    expect(person['svc/fields'].every((f: any) => f['svc/deleted?'] === false)).toBe(true);
    expect(res.body['svc/types'].every((t: any) => t['svc/deleted?'] === false)).toBe(true);
    // The primitive types are types too (svc/primitive? true, no fields): every field's type names
    // a type of the schema, which the service's n8n node relies on.
    const byName = new Map(res.body['svc/types'].map((t: any) => [t['svc/name'], t]));
    expect(byName.get('svc/int')).toMatchObject({
      'svc/meta': { 'svc/primitive?': true, 'svc/platform?': true },
      'svc/fields': [],
    });
    // The service's own types say so too (svc/platform?): a client that lists the users' own
    // databases keeps the types without it, and then reads each one's title field.
    const platform = res.body['svc/types']
      .filter((t: any) => t['svc/meta']['svc/platform?'] === true && !t['svc/meta']['svc/primitive?'])
      .map((t: any) => t['svc/name']);
    expect(platform).toEqual(
      expect.arrayContaining(['svc/user', 'svc/file', 'Collaboration~Documents/Document']),
    );
    expect(platform).not.toContain(PERSON);
    expect(person['svc/meta']).not.toHaveProperty('svc/platform?');
    for (const t of res.body['svc/types'])
      for (const f of t['svc/fields'])
        expect(byName.has(f['svc/type']), `${t['svc/name']} ${f['svc/name']}: ${f['svc/type']}`).toBe(true);
    expect((await h.request('GET', '/api/schema')).body['svc/types'][0]).not.toHaveProperty(
      'svc/description',
    );
    const etag = res.headers.get('etag')!;
    const again = await fetch(`${h.url}/api/schema?with-description=true`, {
      headers: { authorization: `Token ${h.token}`, 'if-none-match': etag },
    });
    expect(again.status).toBe(304);
    await h.run('schema.field/create', {
      'svc/holder-type': TEAM,
      'svc/name': 'rc/extra',
      'svc/type': 'svc/text',
    });
    const changed = await fetch(`${h.url}/api/schema?with-description=true`, {
      headers: { authorization: `Token ${h.token}`, 'if-none-match': etag },
    });
    expect(changed.status).toBe(200);
    expect((await h.request('GET', '/api/schema?with-description=yes')).status).toBe(400);
    expect((await h.request('GET', '/api/schema', undefined, null)).status).toBe(401);
  });

  async function bioSecret(person: string): Promise<string> {
    const [row] = await h.run('svc.entity/query', {
      query: {
        'q/from': PERSON,
        'q/select': { s: ['rc/bio', 'Collaboration~Documents/secret'] },
        'q/where': ['=', ['svc/id'], '$p'],
      },
      params: { $p: person },
    });
    return row.s;
  }

  it('document writes answer true; create-or-append-documents appends', async () => {
    const secret = await bioSecret(people[1]!);
    const other = await bioSecret(people[2]!);
    const post = (body: unknown, format = 'md') =>
      h.request('POST', `/api/documents/commands?format=${format}`, body);
    const written = await post({
      command: 'create-or-update-documents',
      args: [{ secret, content: 'First' }],
    });
    expect(written).toMatchObject({ status: 200, body: true });
    const appended = await post({
      command: 'create-or-append-documents',
      args: [
        { secret, content: 'Second' },
        { secret: other, content: 'Only' },
      ],
    });
    expect(appended).toMatchObject({ status: 200, body: true });
    expect((await h.request('GET', `/api/documents/${secret}?format=md`)).body.content).toBe(
      'First\n\nSecond',
    );
    expect((await h.request('GET', `/api/documents/${other}`)).body.content).toBe('Only');
    // In html, the new content follows the old as it is.
    await post(
      { command: 'create-or-update-documents', args: [{ secret: other, content: '<p>a</p>' }] },
      'html',
    );
    await post(
      { command: 'create-or-append-documents', args: [{ secret: other, content: '<p>b</p>' }] },
      'html',
    );
    expect((await h.request('GET', `/api/documents/${other}?format=html`)).body.content).toBe(
      '<p>a</p><p>b</p>',
    );
    const bad = await post({ command: 'create-or-append-documents', args: [{ secret, content: 5 }] });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ message: 'content must be a string', code: 'bad-request' });
    // get-documents takes a document by its bare secret too, as a TypeScript client sends it.
    const got = await post({ command: 'get-documents', args: [secret, { secret: other }] });
    expect(got.body).toEqual([
      { secret, content: 'First\n\nSecond' },
      { secret: other, content: 'a\n\nb' },
    ]);
    expect((await post({ command: 'get-documents', args: ['not-a-secret'] })).status).toBe(400);
  });

  it('documents in json format: the ProseMirror document under doc, read and written', async () => {
    const secret = await bioSecret(people[0]!);
    await h.request('PUT', `/api/documents/${secret}?format=md`, { content: '# Hi\n\nSome **bold** text' });
    const got = await h.request('GET', `/api/documents/${secret}?format=json`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({
      secret,
      content: {
        doc: {
          type: 'doc',
          content: [
            { type: 'heading', attrs: { level: 1 }, content: [{ type: 'text', text: 'Hi' }] },
            {
              type: 'paragraph',
              content: [
                { type: 'text', text: 'Some ' },
                { type: 'text', marks: [{ type: 'strong' }], text: 'bold' },
                { type: 'text', text: ' text' },
              ],
            },
          ],
        },
        comments: [],
      },
    });
    const batch = await h.request('POST', '/api/documents/commands?format=json', {
      command: 'get-documents',
      args: [{ secret }],
    });
    expect(batch.body).toEqual([got.body]);
    const doc = {
      type: 'doc',
      content: [
        { type: 'paragraph', content: [{ type: 'text', marks: [{ type: 'em' }], text: 'new' }] },
        {
          type: 'bullet_list',
          content: [
            { type: 'list_item', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'x' }] }] },
          ],
        },
      ],
    };
    for (const content of [{ doc, comments: [] }, doc, JSON.stringify({ doc })]) {
      expect((await h.request('PUT', `/api/documents/${secret}?format=json`, { content })).status).toBe(200);
      expect((await h.request('GET', `/api/documents/${secret}?format=md`)).body.content).toBe(
        '*new*\n\n* x',
      );
    }
    for (const content of [{ type: 'nope' }, '{not json', { doc: { type: 'paragraph' } }, 5]) {
      const r = await h.request('PUT', `/api/documents/${secret}?format=json`, { content });
      expect(r.status, JSON.stringify(content)).toBe(400);
      expect(r.body.message).toEqual(expect.any(String));
    }
    // A document never written reads as an empty document.
    const fresh = await bioSecret(
      (await h.run('svc.entity/create', { type: PERSON, entity: { 'rc/name': 'Dee' } }))['svc/id'],
    );
    expect((await h.request('GET', `/api/documents/${fresh}?format=json`)).body.content.doc).toEqual({
      type: 'doc',
      content: [{ type: 'paragraph' }],
    });
  });

  it('aggregates of the queried type’s own fields sum up the whole query, as a client counts a database', async () => {
    const query = (select: unknown, where?: unknown) =>
      h.attempt('svc.entity/query', {
        query: { 'q/from': PERSON, 'q/select': select, ...(where ? { 'q/where': where } : {}), 'q/limit': 1 },
        params: where ? { $team: team } : null,
      });
    const blue = ['=', ['rc/team', 'svc/id'], '$team'];
    const totals = await query(
      {
        n: ['q/count', 'svc/id'],
        ids: ['q/count', ['svc/id']],
        teams: ['q/count', 'rc/team'],
        sum: ['q/sum', 'rc/age'],
        avg: ['q/avg', 'rc/age'],
        min: ['q/min', 'rc/age'],
        max: ['q/max', 'rc/name'],
      },
      blue,
    );
    expect(totals.result).toEqual([{ n: 3, ids: 3, teams: 3, sum: 93, avg: 31, min: 30, max: 'Cy' }]);
    // Unfiltered, past q/limit: every person.
    const everyone = await h.run('svc.entity/query', {
      query: { 'q/from': PERSON, 'q/select': ['svc/id'], 'q/limit': 'q/no-limit' },
    });
    expect((await query({ n: ['q/count', 'svc/id'] })).result).toEqual([{ n: everyone.length }]);
    // A collection's count is per entity, as before, with or without the item's field.
    const perTeam = await h.run('svc.entity/query', {
      query: {
        'q/from': TEAM,
        'q/select': { n: ['q/count', ['rc/people', 'svc/id']], m: ['q/count', ['rc/people']] },
        'q/where': ['=', ['svc/id'], '$team'],
      },
      params: { $team: team },
    });
    expect(perTeam).toEqual([{ n: 3, m: 3 }]);
    for (const select of [
      { name: 'rc/name', n: ['q/count', 'svc/id'] },
      { s: ['q/sum', 'rc/name'] },
      { m: ['q/min', 'rc/team'] },
      { n: ['q/count', 'rc/nope'] },
    ]) {
      const r = await query(select);
      expect(r.success, JSON.stringify(select)).toBe(false);
      expect(['invalid-query', 'unknown-field']).toContain(r.result.code);
    }
  });

  it('filters other clients write: a field named on its own, and `and`, `or`, `in` without q/', async () => {
    const names = (where: unknown, params: Record<string, unknown>) => namesOf(PERSON, where, params);
    expect(await names(['=', 'svc/id', '$id'], { $id: people[1] })).toEqual(['Bob']);
    expect(
      await names(['and', ['>=', 'rc/age', '$a'], ['=', ['rc/team', 'svc/id'], '$t']], { $a: 31, $t: team }),
    ).toEqual(['Bob', 'Cy']);
    expect(
      await names(['or', ['=', 'rc/name', '$a'], ['=', 'rc/name', '$b']], { $a: 'Ann', $b: 'Cy' }),
    ).toEqual(['Ann', 'Cy']);
    expect(await names(['in', 'rc/name', '$n'], { $n: ['Bob', 'Nobody'] })).toEqual(['Bob']);
    // "Has this item": q/contains and q/not-contains through a collection to its items' ids (an MCP
    // server teaches this form), beside the bare collection and a text field of the items.
    const green = (await h.run('svc.entity/create', { type: TEAM, entity: { 'rc/name': 'Green' } }))[
      'svc/id'
    ];
    // (Among these two: other tests make teams of their own.)
    const teams = (where: unknown, p: unknown) =>
      namesOf(TEAM, ['q/and', ['q/in', ['rc/name'], '$two'], where], { $p: p, $two: ['Blue', 'Green'] });
    expect(await teams(['q/contains', ['rc/people', 'svc/id'], '$p'], people[0])).toEqual(['Blue']);
    expect(await teams(['q/not-contains', ['rc/people', 'svc/id'], '$p'], people[0])).toEqual(['Green']);
    expect(await teams(['q/does_not_contain', ['rc/people', 'svc/id'], '$p'], people[0])).toEqual(['Green']);
    expect(await teams(['q/not-contains', ['rc/people'], '$p'], people[0])).toEqual(['Green']);
    expect(await teams(['q/contains', ['rc/people', 'rc/name'], '$p'], 'NN')).toEqual(['Blue']);
    expect(await teams(['q/contains', ['rc/people', 'rc/age'], '$p'], 31)).toEqual(['Blue']);
    await h.run('svc.entity/delete', { type: TEAM, entity: { 'svc/id': green } });
    // A value still only comes as a parameter; a name that is no field is an unknown field.
    const inline = await h.attempt('svc.entity/query', {
      query: { 'q/from': PERSON, 'q/select': ['rc/name'], 'q/where': ['=', ['rc/name'], 'Ann'] },
    });
    expect(inline.result?.code).toBe('invalid-query');
    const unknown = await h.attempt('svc.entity/query', {
      query: { 'q/from': PERSON, 'q/select': ['rc/name'], 'q/where': ['=', 'rc/nope', '$a'] },
      params: { $a: 1 },
    });
    expect(unknown.result?.code).toBe('unknown-field');
  });

  it('filters the n8n node sends: text ignoring case, q/not-contains, [q/null?], [q/null-or-empty?], [q/count]', async () => {
    const names = namesOf;
    const inBlue = (expr: unknown) => ['q/and', ['=', ['rc/team', 'svc/id'], '$team'], expr];
    const people = async (expr: unknown, p: unknown) => names(PERSON, inBlue(expr), { $team: team, $p: p });
    expect(await people(['q/equals-ignoring-case?', ['rc/name'], '$p'], 'aNN')).toEqual(['Ann']);
    expect(await people(['q/not-equals-ignoring-case?', ['rc/name'], '$p'], 'ANN')).toEqual(['Bob', 'Cy']);
    expect(await people(['q/starts-with-ignoring-case?', ['rc/name'], '$p'], 'b')).toEqual(['Bob']);
    expect(await people(['q/ends-with-ignoring-case?', ['rc/name'], '$p'], 'Y')).toEqual(['Cy']);
    expect(await people(['q/contains-ignoring-case?', ['rc/name'], '$p'], 'N')).toEqual(['Ann']);
    expect(await people(['q/not-contains', ['rc/name'], '$p'], 'O')).toEqual(['Ann', 'Cy']);
    expect(await people(['q/does_not_contain', ['rc/name'], '$p'], 'n')).toEqual(['Bob', 'Cy']);
    expect(await people(['=', ['q/null-or-empty?', ['rc/name']], '$p'], false)).toEqual(['Ann', 'Bob', 'Cy']);
    expect(await people(['=', ['q/null?', ['rc/age']], '$p'], true)).toEqual([]);
    expect(await people(['!=', ['q/null?', ['rc/status']], '$p'], true)).toEqual(['Ann', 'Bob', 'Cy']);
    // A person with no team and an empty name.
    await h.run('svc.entity/create', { type: PERSON, entity: { 'rc/name': '' } });
    const noTeam = await names(PERSON, ['=', ['q/null?', ['rc/team']], '$p'], { $p: true });
    expect(noTeam).toContain('');
    expect(noTeam).not.toContain('Ann');
    expect(await names(PERSON, ['=', ['q/null-or-empty?', ['rc/name']], '$p'], { $p: true })).toEqual(['']);
    // Collections: by their item count, or empty or not.
    expect(await names(TEAM, ['>', ['q/count', ['rc/people', 'svc/id']], '$p'], { $p: 0 })).toEqual(['Blue']);
    expect(await names(TEAM, ['=', ['q/count', ['rc/people', 'svc/id']], '$p'], { $p: 3 })).toEqual(['Blue']);
    expect(await names(TEAM, ['=', ['q/null?', ['rc/people']], '$p'], { $p: false })).toEqual(['Blue']);
    for (const [where, p] of [
      [['=', ['q/count', ['rc/people', 'svc/id']], '$p'], 'x'],
      [['=', ['q/null?', ['rc/name']], '$p'], 1],
      [['<', ['q/null?', ['rc/name']], '$p'], true],
      [['q/equals-ignoring-case?', ['svc/creation-date'], '$p'], 'x'],
      [['q/not-contains', ['rc/name'], '$p'], 5],
      [['q/contains-ignoring-case?', ['rc/name'], '$p'], 5],
    ]) {
      const r = await h.attempt('svc.entity/query', {
        query: { 'q/from': TEAM, 'q/select': ['rc/name'], 'q/where': where },
        params: { $p: p },
      });
      expect(r.result?.code, JSON.stringify(where)).toBe('invalid-query');
    }
  });
});
