import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromEnv } from '../src/config.js';
import { describeEachDatabase, typeArgs, useWorkspace } from './support/databases.js';
import { hookReceiver } from './support/hook-receiver.js';

// The data API in the real service's words (WEFT_NAMESPACE=fibery): every name in the namespace
// is `fibery…` on the way in and on the way out; data that looks like a name is left alone.

/** `value` with every svc name (key or whole string) written in the fibery namespace. */
function inFibery(value: unknown): any {
  if (typeof value === 'string') return value.replace(/^svc([./])/, 'fibery$1');
  if (Array.isArray(value)) return value.map(inFibery);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [inFibery(k), inFibery(v)]));
  }
  return value;
}

const keysOf = (value: unknown): string[] =>
  Array.isArray(value)
    ? value.flatMap(keysOf)
    : value && typeof value === 'object'
      ? Object.entries(value).flatMap(([k, v]) => [k, ...keysOf(v)])
      : [];

// data that looks like names, which must come back as it went in
const TEXT = 'svc/x and fibery/y';
const JSON_VALUE = { 'svc/id': 'not a reference', 'fibery/k': ['svc/v'] };

describeEachDatabase('the namespace setting: fibery', (target) => {
  const h = useWorkspace(target, { namespace: 'fibery' });
  const rx = hookReceiver();

  beforeAll(async () => {
    await rx.start();
    await h.run('fibery.schema/batch', {
      commands: [
        {
          command: 'schema.type/create',
          args: inFibery(
            typeArgs('ns/Note', [
              ['ns/count', 'svc/int'],
              ['ns/data', 'svc/json-value'],
              ['ns/owner', 'svc/user'],
            ]),
          ),
        },
      ],
    });
  });
  afterAll(() => rx.stop());

  it('answers fibery.schema/query in fibery names, the workspace own types included', async () => {
    const schema = await h.run('fibery.schema/query');
    expect(keysOf(schema).filter((k) => k.startsWith('svc'))).toEqual([]);
    const names = schema['fibery/types'].map((t: any) => t['fibery/name']);
    expect(names).toEqual(expect.arrayContaining(['fibery/user', 'fibery/file', 'ns/Note']));
    const note = schema['fibery/types'].find((t: any) => t['fibery/name'] === 'ns/Note');
    const fields = Object.fromEntries(
      note['fibery/fields'].map((f: any) => [f['fibery/name'], f['fibery/type']]),
    );
    expect(fields).toMatchObject({
      'fibery/id': 'fibery/uuid',
      'ns/count': 'fibery/int',
      'ns/data': 'fibery/json-value',
      'ns/owner': 'fibery/user',
    });
  });

  it('creates and queries entities in fibery names, keeping text and JSON values as they are', async () => {
    const created = await h.run('fibery.entity/create', {
      type: 'ns/Note',
      entity: {
        'ns/name': TEXT,
        'ns/count': 2,
        'ns/data': JSON_VALUE,
        'ns/owner': { 'fibery/id': h.ws.adminUserId },
      },
    });
    expect(created).toMatchObject({
      'fibery/id': expect.any(String),
      'fibery/public-id': expect.any(String),
      'ns/name': TEXT,
      'ns/data': JSON_VALUE,
      'ns/owner': { 'fibery/id': h.ws.adminUserId },
    });
    expect(keysOf({ ...created, 'ns/data': null }).filter((k) => k.startsWith('svc'))).toEqual([]);

    const rows = await h.run('fibery.entity/query', {
      query: {
        'q/from': 'ns/Note',
        'q/select': ['fibery/id', 'ns/name', 'ns/data', { 'ns/owner': ['fibery/id', 'user/name'] }],
        'q/where': ['q/and', ['=', ['fibery/id'], '$id'], ['=', ['ns/name'], '$text']],
        'q/order-by': [[['fibery/creation-date'], 'q/asc']],
        'q/limit': 10,
      },
      params: { $id: created['fibery/id'], $text: TEXT },
    });
    expect(rows).toEqual([
      {
        'fibery/id': created['fibery/id'],
        'ns/name': TEXT,
        'ns/data': JSON_VALUE,
        'ns/owner': { 'fibery/id': h.ws.adminUserId, 'user/name': 'Admin' },
      },
    ]);
  });

  it('property: any text or JSON value written through fibery names is read back unchanged', async () => {
    const nameLike = fc.constantFrom('svc/x', 'fibery/id', 'svc.entity/query', 'svc', '"svc/id"');
    const text = fc.oneof(fc.string({ maxLength: 30 }), nameLike);
    const json = fc.dictionary(
      fc.oneof(fc.string({ maxLength: 10 }), nameLike),
      fc.oneof(text, fc.integer()),
      {
        maxKeys: 4,
      },
    );
    await fc.assert(
      fc.asyncProperty(text, json, async (name, data) => {
        const created = await h.run('fibery.entity/create', {
          type: 'ns/Note',
          entity: { 'ns/name': name, 'ns/data': data },
        });
        const [row] = await h.run('fibery.entity/query', {
          query: {
            'q/from': 'ns/Note',
            'q/select': ['ns/name', 'ns/data'],
            'q/where': ['=', ['fibery/id'], '$id'],
            'q/limit': 1,
          },
          params: { $id: created['fibery/id'] },
        });
        expect(row).toEqual({ 'ns/name': name, 'ns/data': data });
      }),
      { numRuns: 25 },
    );
  });

  it('runs a fibery.command/batch and names errors in fibery', async () => {
    const [batch, unknown, badField] = await h.commands([
      {
        command: 'fibery.command/batch',
        args: {
          commands: [
            { command: 'fibery.entity/create', args: { type: 'ns/Note', entity: { 'ns/name': 'b' } } },
            {
              command: 'fibery.entity/query',
              args: { query: { 'q/from': 'fibery/user', 'q/select': ['fibery/id'], 'q/limit': 1 } },
            },
          ],
        },
      },
      { command: 'fibery.nothing/here', args: {} },
      {
        command: 'fibery.entity/query',
        args: { query: { 'q/from': 'ns/Note', 'q/select': ['fibery/nope'], 'q/limit': 1 } },
      },
    ]);
    expect(batch.success).toBe(true);
    expect(JSON.stringify(batch.result)).not.toMatch(/"svc[./]/);
    expect(batch.result[1]).toEqual({ success: true, result: [{ 'fibery/id': expect.any(String) }] });
    expect(unknown.success).toBe(false);
    expect(JSON.stringify(unknown)).toContain('fibery.nothing/here');
    expect(JSON.stringify(unknown)).not.toContain('svc.');
    expect(badField.success).toBe(false);
    expect(JSON.stringify(badField)).toContain('fibery/nope');
    expect(JSON.stringify(badField)).not.toContain('svc/');
  });

  it("makes and removes a space, and says what the user may do, in the commands of the service's own page and extension", async () => {
    const id = randomUUID();
    const [saved, installed] = await h.commands([
      {
        command: 'fibery.app/save',
        args: { app: { 'fibery/id': id, 'fibery/name': 'Plans', 'fibery/namespace': 'Plans' } },
      },
      { command: 'fibery.app/install', args: { name: 'Plans', version: '1.0.0' } },
    ]);
    expect(saved).toEqual({ success: true, result: { 'fibery/id': id, 'fibery/name': 'Plans' } });
    expect(installed).toEqual({ success: true, result: 'ok' });
    await h.run('fibery.app/update', { 'fibery/id': id, 'fibery/icon': 'star', 'fibery/color': '#000000' });
    // Listed as the service's page lists spaces.
    const listed = await h.run('fibery.entity/query', {
      query: {
        'q/from': 'fibery/app',
        'q/select': {
          'fibery/id': ['fibery/id'],
          'fibery/name': ['fibery/name'],
          'fibery/title': ['fibery/title'],
          'fibery/status': ['fibery/status'],
          'fibery/color': ['fibery/color'],
          'fibery/icon': ['fibery/icon'],
        },
        'q/limit': 100,
      },
    });
    expect(listed).toContainEqual({
      'fibery/id': id,
      'fibery/name': 'Plans',
      'fibery/title': 'Plans',
      'fibery/status': 'app/installed',
      'fibery/color': '#000000',
      'fibery/icon': 'star',
    });
    await h.run('schema.type/create', inFibery(typeArgs('Plans/Goal', [], { 'svc/domain?': true })));
    const [apps, caps] = await h.commands([
      { command: 'fibery.app/get-available-apps', args: {} },
      { command: 'fibery.type/query-user-capabilities', args: { capabilities: ['entity.create'] } },
    ]);
    expect(apps.result).toContainEqual({
      'app-id': id,
      'app-namespace': 'Plans',
      access: 'access/type.creator',
    });
    expect(caps.result['Plans/Goal']).toEqual(['entity.create']);
    await h.run('schema.type/delete', { name: 'Plans/Goal', 'delete-entities?': true });
    const [gone] = await h.commands([{ command: 'fibery.app/delete', args: { 'fibery/id': id } }]);
    expect(gone).toEqual({ success: true, result: 'ok' });
  });

  it('installs a workflow with its states named in fibery names', async () => {
    await h.run('schema.type/create', inFibery(typeArgs('ns/Step')));
    const open = randomUUID();
    expect(
      await h.run('workflow/install', {
        type: 'ns/Step',
        states: [
          { 'fibery/id': open, 'enum/name': 'Open', 'workflow/Type': 'Not started' },
          { 'enum/name': 'Closed', 'workflow/Type': 'Finished' },
        ],
        'default-state-id': open,
      }),
    ).toBe('ok');
    const step = await h.run('fibery.entity/create', { type: 'ns/Step', entity: { 'ns/name': 's' } });
    const [row] = await h.run('fibery.entity/query', {
      query: {
        'q/from': 'ns/Step',
        'q/select': { state: ['workflow/state', 'fibery/id'] },
        'q/where': ['=', ['fibery/id'], '$id'],
      },
      params: { $id: step['fibery/id'] },
    });
    expect(row.state).toBe(open);
  });

  it('answers file uploads in fibery names', async () => {
    const form = new FormData();
    form.append('file', new Blob(['hello']), 'notes.txt');
    const res = await fetch(`${h.url}/api/files`, {
      method: 'POST',
      headers: { authorization: `Token ${h.token}` },
      body: form,
    });
    const file = await res.json();
    expect(file).toEqual({
      'fibery/id': expect.any(String),
      'fibery/name': 'notes.txt',
      'fibery/content-type': expect.any(String),
      'fibery/secret': expect.any(String),
      'fibery/content-length': 5,
    });
  });

  it('takes and answers webhooks, users and views in fibery names', async () => {
    const hook = await h.request('POST', '/api/webhooks/v2', {
      url: 'http://127.0.0.1:9/x',
      type: 'fibery/user',
    });
    expect(hook.status, JSON.stringify(hook.body)).toBe(200);
    expect(hook.body.type).toBe('fibery/user');
    const hooks = (await h.request('GET', '/api/webhooks/v2')).body;
    expect(hooks.find((w: any) => w.id === hook.body.id).type).toBe('fibery/user');
    expect((await h.request('DELETE', `/api/webhooks/v2/${hook.body.id}`)).status).toBe(200);

    const users = (await h.request('GET', '/api/users')).body;
    expect(users[0]).toMatchObject({ 'fibery/id': expect.any(String), 'user/name': expect.any(String) });

    const id = randomUUID();
    const created = await h.request('POST', '/api/views/json-rpc', {
      jsonrpc: '2.0',
      id: 1,
      method: 'create-views',
      params: {
        views: [
          {
            'fibery/id': id,
            'fibery/name': 'svc/board',
            'fibery/type': 'board',
            'fibery/meta': {},
            'fibery/container-app': { 'fibery/id': randomUUID() },
          },
        ],
      },
    });
    expect(created.body.result).toEqual([
      expect.objectContaining({
        'fibery/id': id,
        'fibery/name': 'svc/board',
        'fibery/public-id': expect.any(String),
      }),
    ]);
  });

  it('delivers webhooks in fibery names', async () => {
    const hook = await h.request('POST', '/api/webhooks/v2', { url: rx.url, type: 'ns/Note' });
    expect(hook.status).toBe(200);
    expect(hook.body.type).toBe('ns/Note');
    const created = await h.run('fibery.entity/create', {
      type: 'ns/Note',
      entity: { 'ns/name': TEXT, 'ns/data': JSON_VALUE },
    });
    await h.run('fibery.entity/update', {
      type: 'ns/Note',
      entity: { 'fibery/id': created['fibery/id'], 'ns/count': 7 },
    });
    await rx.until(2);
    const effects = rx.bodies.flatMap((d) => d.body.effects);
    expect(effects.map((e: any) => e.effect)).toEqual(['fibery.entity/create', 'fibery.entity/update']);
    expect(effects[0].values).toMatchObject({
      'fibery/id': created['fibery/id'],
      'ns/name': TEXT,
      'ns/data': JSON_VALUE,
    });
    // every key is in fibery but those of the JSON value, which is data
    const withoutData = effects.map((e: any) => ({ ...e, values: { ...e.values, 'ns/data': null } }));
    expect(keysOf(withoutData).filter((k) => k.startsWith('svc'))).toEqual([]);
  });
});

describeEachDatabase('the namespace setting: svc (the default)', (target) => {
  const h = useWorkspace(target);

  it('speaks svc as the spec writes it and knows no fibery command', async () => {
    const schema = await h.run('svc.schema/query');
    expect(schema['svc/types'].map((t: any) => t['svc/name'])).toContain('svc/user');
    const [fibery] = await h.commands([{ command: 'fibery.schema/query', args: {} }]);
    expect(fibery.success).toBe(false);
    expect(JSON.stringify(fibery)).toContain('fibery.schema/query');
  });
});

describe('WEFT_NAMESPACE', () => {
  it('is svc unless set, fibery when asked, and refused otherwise', () => {
    expect(configFromEnv({}).namespace).toBe('svc');
    expect(configFromEnv({ WEFT_NAMESPACE: 'fibery' }).namespace).toBe('fibery');
    expect(() => configFromEnv({ WEFT_NAMESPACE: 'acme' })).toThrow(
      /WEFT_NAMESPACE must be one of svc, fibery/,
    );
  });
});
