// The service side reads app answers leniently (src/reader): over real HTTP, a bare app sends
// what apps in production send and weft's core never emits; the engine takes it with warnings,
// and confines what it cannot read to one field or type.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AppCallError,
  AppClient,
  formatWarning,
  type ReaderWarning,
  readDataAnswer,
  readDescriptor,
  readPages,
  readSchema,
} from '../src/index.js';

/** path -> JSON answer; each test sets what it needs */
const answers = new Map<string, unknown>();
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const body = answers.get(req.url ?? '');
      if (body === undefined) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"no"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function client() {
  const warnings: ReaderWarning[] = [];
  return { warnings, client: new AppClient(url, { onWarning: (w) => warnings.push(w) }) };
}
const wheres = (ws: ReaderWarning[]) => ws.map((w) => w.where);

describe('the descriptor', () => {
  const base = {
    name: 'Loose',
    version: '1.0',
    description: 'an app in production',
    sources: [],
    authentication: [
      {
        id: 'token',
        name: 'Token',
        fields: [{ id: 'key', title: 'API key', type: 'password', optional: 'false', extra: 1 }],
      },
    ],
  };

  it('is taken without website, responsibleFor, a field description or name, with a warning for each', async () => {
    answers.set('/', base);
    const { client: c, warnings } = client();
    const d = await c.descriptor();
    expect(d.name).toBe('Loose');
    expect(d.website).toBeUndefined();
    const field = d.authentication[0]?.fields?.[0];
    expect(field).toMatchObject({ id: 'key', name: 'API key', description: '', optional: false, extra: 1 });
    expect(wheres(warnings)).toEqual(
      expect.arrayContaining([
        'descriptor.website',
        'descriptor.responsibleFor',
        'descriptor.authentication.token.key.name',
        'descriptor.authentication.token.key.description',
        'descriptor.authentication.token.key.optional',
      ]),
    );
    expect(warnings.find((w) => w.where.endsWith('.optional'))?.message).toMatch(/"false" read as false/);
  });

  it('reads a string responsibleFor flag and an unknown field type as text', async () => {
    answers.set('/', {
      ...base,
      responsibleFor: { dataSynchronization: 'true' },
      authentication: [
        { id: 'token', name: 'Token', fields: [{ id: 'k', name: 'K', type: 'secret-box', description: '' }] },
      ],
    });
    const { client: c, warnings } = client();
    const d = await c.descriptor();
    expect(d.responsibleFor?.dataSynchronization).toBe(true);
    expect(d.authentication[0]?.fields?.[0]?.type).toBe('text');
    expect(warnings.map((w) => w.message).join('\n')).toMatch(/unknown field type "secret-box"/);
  });

  it('leaves out an account field without an id; takes null for optional keys and a field without type', () => {
    const read = readDescriptor({
      ...base,
      responsibleFor: null,
      actions: null,
      authentication: [
        {
          id: 'token',
          name: 'Token',
          fields: [{ title: 'no id' }, { id: 'key', name: 'Key', description: '' }],
        },
        { id: 'none', name: 'None', fields: null },
      ],
    });
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.value.authentication[0]?.fields).toEqual([
      { id: 'key', name: 'Key', description: '', type: 'text' },
    ]);
    expect(read.value.authentication[1]).toEqual({ id: 'none', name: 'None' });
    expect(read.value).not.toHaveProperty('responsibleFor');
    expect(read.value).not.toHaveProperty('actions');
    expect(read.warnings.filter((w) => w.dropped).map((w) => w.where)).toEqual([
      'descriptor.authentication.token.0',
    ]);
  });

  it('is refused without what the service insists on (name), naming the key', async () => {
    const { name: _, ...nameless } = base;
    answers.set('/', nameless);
    await expect(client().client.descriptor()).rejects.toThrow(AppCallError);
    await expect(client().client.descriptor()).rejects.toThrow(/name/);
  });
});

describe('the config', () => {
  it('takes filters without title, string booleans and numbers, unknown filter types; leaves out a filter it cannot read', async () => {
    answers.set('/api/v1/synchronizer/config', {
      types: [{ id: 'event' }],
      filters: [
        { id: 'calendar', type: 'list', datalist: 'true', optional: 'true' },
        { id: 'when', title: 'When', type: 'period-picker' },
        { title: 'no id' },
      ],
      webhooks: { enabled: 'false' },
      version: '10',
    });
    const { client: c, warnings } = client();
    const config = await c.config({});
    expect(config.types).toEqual([{ id: 'event', name: 'event' }]);
    expect(config.filters).toEqual([
      { id: 'calendar', title: 'calendar', type: 'list', datalist: true, optional: true },
      { id: 'when', title: 'When', type: 'text' },
    ]);
    expect(config.webhooks).toEqual({ enabled: false });
    expect(config.version).toBe(10);
    expect(warnings.filter((w) => w.dropped).map((w) => w.where)).toEqual(['config.filters.2']);
  });
});

describe('the schema', () => {
  const schema = {
    task: {
      id: { name: 'Id', type: 'id', path: 7 },
      name: { title: 'Name', type: 'text', readonly: 'true', order: '10' },
      status: { name: 'Status', type: 'text', subType: 'kanban-state', extra: true },
      owner: {
        name: 'Owner',
        type: 'text',
        relation: {
          cardinality: 'one-to-many',
          name: 'Owner',
          targetType: 'user',
          targetName: 'Tasks',
          targetFieldId: 'id',
        },
      },
      project: { name: 'Project', type: 'text', relation: { cardinality: 'many-to-one', name: 'Project' } },
      score: { name: 'Score', type: 'float' },
      parent: { name: 'Parent', type: 'text', relation: { cardinality: 'many-to-one', targetType: 'task' } },
    },
    broken: 'not fields',
    user: { id: { name: 'Id', type: 'id' }, name: { name: 'Name', type: 'text' } },
  };

  it('leaves out only the fields and types it cannot read, each with a warning naming type and field', async () => {
    answers.set('/api/v1/synchronizer/schema', schema);
    const { client: c } = client();
    const { value, warnings } = await c.readSchema(['task', 'broken', 'user'], {}, {});
    expect(Object.keys(value)).toEqual(['task', 'user']);
    expect(Object.keys(value.task ?? {})).toEqual(['id', 'name', 'status', 'parent']);
    expect(value.user).toEqual(schema.user);
    const dropped = warnings.filter((w) => w.dropped);
    expect(dropped.map((w) => w.where)).toEqual([
      'schema.task.owner',
      'schema.task.project',
      'schema.task.score',
      'schema.broken',
    ]);
    expect(dropped[0]?.message).toMatch(/unknown relation cardinality "one-to-many"/);
    expect(dropped[1]?.message).toMatch(/no `targetType`/);
    expect(dropped[2]?.message).toMatch(/unknown field type "float"/);
  });

  it('takes title for name, string booleans and numbers, unknown subTypes and keys', () => {
    const read = readSchema(schema, ['task', 'user']);
    expect(read.ok).toBe(true);
    const task = read.ok ? read.value.task : undefined;
    // An optional key it cannot read is left out; the field stays.
    expect(task?.id).toEqual({ name: 'Id', type: 'id' });
    expect(task?.name).toMatchObject({ name: 'Name', readonly: true, order: 10 });
    expect(task?.status).toEqual({ name: 'Status', type: 'text', extra: true });
    expect(task?.parent?.relation).toEqual({
      cardinality: 'many-to-one',
      name: 'Parent',
      targetType: 'task',
      targetName: 'task',
      targetFieldId: 'id',
    });
    const notes = read.warnings.filter((w) => !w.dropped).map((w) => `${w.where}: ${w.message}`);
    expect(notes).toEqual(
      expect.arrayContaining([
        'schema.task.name.name: missing: the label is taken from `title`',
        'schema.task.name.readonly: the string "true" read as true',
        'schema.task.name.order: the string "10" read as the number 10',
        'schema.task.status.subType: unknown subType "kanban-state": read as plain text',
        'schema.task.id.path: 7 cannot be read: left out',
      ]),
    );
  });

  it('reads a type or subType written in another case as the one it names, with a warning', () => {
    // An app in production declares its id fields {"type": "ID"}; the service syncs them as ids.
    const read = readSchema(
      {
        entry: {
          id: { name: 'Id', type: 'ID' },
          done: { name: 'Done', type: 'Text', subType: 'Boolean' },
          size: { name: 'Size', type: 'Numeric' },
        },
      },
      ['entry'],
    );
    expect(read.ok).toBe(true);
    const entry = read.ok ? read.value.entry : undefined;
    expect(entry?.id).toEqual({ name: 'Id', type: 'id' });
    expect(entry?.done).toEqual({ name: 'Done', type: 'text', subType: 'boolean' });
    // Another word in any case is still unknown, and left out.
    expect(entry).not.toHaveProperty('size');
    expect(read.warnings.map((w) => `${w.where}: ${w.message}`)).toEqual(
      expect.arrayContaining([
        'schema.entry.id.type: "ID" read as "id"',
        'schema.entry.done.type: "Text" read as "text"',
        'schema.entry.done.subType: "Boolean" read as "boolean"',
      ]),
    );
  });

  it('is refused only when it is not an object', async () => {
    answers.set('/api/v1/synchronizer/schema', ['task']);
    await expect(client().client.schema(['task'], {}, {})).rejects.toThrow(/schema: unexpected answer/);
  });
});

describe('data pages', () => {
  const input = { type: 'task', types: ['task'], filter: {}, account: {}, lastSynchronizedAt: null };

  it('take `items` alone as a full last page, with warnings on the page', async () => {
    answers.set('/api/v1/synchronizer/data', { items: [{ id: 'a' }, { id: 'b' }] });
    const events = [];
    for await (const e of readPages(new AppClient(url), input)) events.push(e);
    expect(events.map((e) => e.kind)).toEqual(['page', 'done']);
    const page = events[0];
    if (page?.kind !== 'page') throw new Error('no page');
    expect(page).toMatchObject({ hasNext: false, nextPageConfig: null, synchronizationType: 'full' });
    expect(page.items).toHaveLength(2);
    expect(wheres(page.warnings)).toEqual(['data.pagination', 'data.synchronizationType']);
  });

  it('read a string hasNext as the boolean it says', async () => {
    answers.set('/api/v1/synchronizer/data', {
      items: [],
      pagination: { hasNext: 'false', nextPageConfig: { page: 2 } },
      synchronizationType: 'delta',
    });
    const page = await new AppClient(url).data({ ...input, requestedType: 'task', pagination: null });
    expect(page).toMatchObject({ hasNext: false, synchronizationType: 'delta' });
    expect(page.warnings.map((w) => w.message)).toEqual(['the string "false" read as false']);
  });

  it('read an unknown synchronizationType as full, with a warning', () => {
    const read = readDataAnswer({ items: [], synchronizationType: 'incremental' });
    expect(read).toMatchObject({ ok: true, value: { synchronizationType: 'full', hasNext: false } });
    expect(read.warnings.map(formatWarning)).toEqual([
      'data.pagination: missing: read as the last page',
      'data.synchronizationType: unknown value "incremental": read as `full`',
    ]);
  });

  it('read `items: null` as no rows, with a note (Go writes null for a list it never filled)', () => {
    const read = readDataAnswer({
      items: null,
      pagination: { hasNext: false, nextPageConfig: { page: 2 } },
      synchronizationType: 'delta',
    });
    expect(read).toMatchObject({
      ok: true,
      value: { items: [], hasNext: false, synchronizationType: 'delta' },
    });
    expect(read.warnings.map(formatWarning)).toEqual(['data.items: null: read as no rows']);
  });

  it('refuse `items` that is not an array', async () => {
    answers.set('/api/v1/synchronizer/data', { items: { a: { id: 'a' } } });
    const outcome = await new AppClient(url).dataPage({
      requestedType: 'task',
      types: ['task'],
      filter: {},
      account: {},
    });
    expect(outcome.kind).toBe('error');
    if (outcome.kind === 'error') expect(outcome.error.message).toMatch(/items: .*array/);
  });

  it('refuse a row that is not an object, naming the first one, before anything else of the page', () => {
    const read = readDataAnswer({ items: [{ id: 'a' }, 3, null], pagination: { hasNext: 'maybe' } });
    expect(read).toMatchObject({ ok: false, problem: 'items.1: expected an object' });
    expect(readDataAnswer({ items: [[{ id: 'a' }]] })).toMatchObject({
      ok: false,
      problem: 'items.0: expected an object',
    });
  });

  it('refuse a page whose pagination cannot be read, once its rows are', () => {
    const read = readDataAnswer({ items: [{ id: 'a' }], pagination: { hasNext: 'maybe' } });
    expect(read.ok).toBe(false);
    if (!read.ok) expect(read.problem).toMatch(/^pagination\.hasNext: /);
  });
});

describe('small answers', () => {
  it('datalist values that are numbers are read as text; items without a value are left out', async () => {
    answers.set('/api/v1/synchronizer/datalist', {
      items: [{ title: 'One', value: 1 }, { value: 'two' }, { title: 'x' }],
    });
    const { client: c, warnings } = client();
    expect(await c.datalist('f', [], {}, {})).toEqual([
      { title: 'One', value: '1' },
      { title: 'two', value: 'two' },
    ]);
    expect(warnings.filter((w) => w.dropped).map((w) => w.where)).toEqual(['datalist.items.2']);
  });

  it('an action answered with something other than an object still ran', async () => {
    answers.set('/api/v1/automations/action/execute', 'done');
    const { client: c, warnings } = client();
    expect(await c.execute('ping', {}, {})).toEqual({});
    expect(warnings.map((w) => w.message)).toEqual(['not a JSON object: read as `{}` (the action ran)']);
  });

  it('validate without `name` gives an account without a title', async () => {
    answers.set('/validate', { token: 'refreshed' });
    const { client: c, warnings } = client();
    expect(await c.validate('token', {})).toEqual({ token: 'refreshed', name: '' });
    expect(wheres(warnings)).toEqual(['validate.name']);
  });
});
