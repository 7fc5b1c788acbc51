// What the real service takes (schema pairs, value shapes, config extras) and everything it sends
// (absent optional keys, extra keys, system account keys), over real HTTP.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type TestApp, testApp } from '../src/testing/index.js';
import {
  InvalidAccountError,
  PROTOCOL_PATHS,
  arg,
  auth,
  defineApp,
  field,
  input,
  remove,
} from '../src/index.js';
import { configResponse, dataResponse, schemaResponse } from '../src/protocol/index.js';
import { descriptorBase } from './fixtures/minimal.js';

const seen: Array<{ where: string; account: unknown; filter?: unknown; args?: unknown }> = [];

const app = defineApp({
  id: 'fidelity',
  name: 'Fidelity',
  ...descriptorBase,
  authentication: [
    auth.fields({
      id: 'key',
      name: 'Key',
      fields: { key: input.password({ name: 'Key' }) },
      validate: (account) => {
        seen.push({ where: 'validate', account });
        if (account.key !== 'k') throw new InvalidAccountError();
        return { name: 'Account', accountId: 'up-1' };
      },
    }),
  ],
  sync: {
    version: 3,
    filters: {
      state: input.list({ name: 'State', optional: true, defaultValue: 'open' }),
      limit: input.number({ name: 'Limit', optional: true, defaultValue: 10 }),
    },
    types: {
      person: {
        name: 'Person',
        description: 'People of the tracker',
        isUser: true,
        default: true,
        fields: { id: field.id(), name: field.title({ order: 1 }), email: field.email({ order: 2 }) },
        async *data({ account, filter }) {
          seen.push({ where: 'data', account, filter });
          yield { id: 'p1', name: 'Ada', email: 'ada@example.com' };
        },
      },
      task: {
        name: 'Task',
        delta: true,
        fields: {
          id: field.id(),
          name: field.text({ postProcessingFunctions: ['trim'] }),
          span: field.dateRange(),
          window: field.dateTimeRange(),
          done: field.bool(),
          place: field.location(),
          face: field.avatar(),
          phone: field.phone(),
          state: field.workflow({
            options: [
              { name: 'Open', default: true, color: '#00ff00' },
              { name: 'Done', final: true, icon: '✅' },
            ],
          }),
          size: field.singleSelect(),
          owner: field.user({ targetName: 'Tasks' }),
          watchers: field.user({ cardinality: 'many-to-many', targetName: 'Watched tasks' }),
          assignee: field.relation({ to: 'person', cardinality: 'one-to-one', targetName: 'Task' }),
        },
        async *data({ mode }) {
          yield {
            id: 't1',
            name: 'Write docs',
            span: { start: '2020-01-22', end: '2020-08-19' },
            window: { start: '2026-11-01T08:00:00.000Z', end: '2026-11-01T17:00:00.000Z' },
            done: false,
            place: { longitude: 13.4, latitude: 52.5, fullAddress: 'Berlin' },
            face: 'https://example.com/ada.png',
            phone: '+49 30 1234567',
            state: 'Open',
            owner: 'ada@example.com',
            watchers: ['ada@example.com', 'grace@example.com'],
            assignee: 'p1',
          };
          // Values already in the wire shape pass unchanged; the old list form of an avatar too.
          yield {
            id: 't2',
            name: 'Ship',
            span: '{"start":"2021-01-01","end":"2021-01-02"}',
            place: '52.5, 13.4',
            done: true,
            face: ['https://example.com/first.png', 'https://example.com/second.png'],
          };
          if (mode === 'delta') yield remove('t3');
        },
      },
    },
  },
  actions: {
    note: {
      name: 'Note',
      args: { text: arg.text({ name: 'Text' }) },
      run: ({ account, args }) => {
        seen.push({ where: 'execute', account, args });
        if (args.text === 'fail') throw new Error('never');
      },
    },
  },
});

let running: TestApp;
beforeAll(async () => {
  running = await testApp(app);
});
afterAll(() => running.close());

/** The system keys the service adds to every account it sends. */
const systemKeys = {
  auth: 'key',
  _id: '6d6f8e3e-0c1b-4b8a-9f51-7f0f8c4e9a11',
  app: 'fidelity',
  owner: 'b1c2d3e4-user',
  name: 'My account',
  enabled: true,
};
const account = { key: 'k', ...systemKeys };

describe('schema: the type/subType pairs the service takes', () => {
  test('every builder sends its pair, options, order, format and native user relations', async () => {
    const res = await running.schema(['person', 'task']);
    expect(res.status).toBe(200);
    expect(schemaResponse.parse(res.body)).toBeTruthy();
    const { person, task } = res.body;
    expect(person.name).toEqual({ id: 'name', name: 'Name', type: 'text', subType: 'title', order: 1 });
    expect(person.email).toMatchObject({ type: 'text', subType: 'email', order: 2 });
    expect(task.name).toMatchObject({ type: 'text', postProcessingFunctions: ['trim'] });
    expect(task.span).toMatchObject({ type: 'text', subType: 'date-range' });
    expect(task.window).toMatchObject({ type: 'text', subType: 'date-time-range' });
    expect(task.done).toMatchObject({ type: 'text', subType: 'boolean' });
    expect(task.place).toMatchObject({ type: 'text', subType: 'location' });
    expect(task.face).toMatchObject({ type: 'text', subType: 'avatar' });
    expect(task.phone).toMatchObject({ type: 'text', format: { format: 'phone' } });
    expect(task.state).toMatchObject({
      type: 'text',
      subType: 'workflow',
      options: [
        { name: 'Open', default: true, color: '#00ff00' },
        { name: 'Done', final: true, icon: '✅' },
      ],
    });
    // A select without options: the service infers them from the data.
    expect(task.size).toEqual({ id: 'size', name: 'Size', type: 'text', subType: 'single-select' });
    expect(task.owner).toEqual({
      id: 'owner',
      name: 'Owner',
      type: 'text',
      relation: {
        cardinality: 'many-to-one',
        kind: 'native',
        name: 'Owner',
        targetType: 'fibery/user',
        targetName: 'Tasks',
        targetFieldId: 'user/email',
      },
    });
    expect(task.watchers).toMatchObject({
      type: 'array[text]',
      relation: { cardinality: 'many-to-many', kind: 'native' },
    });
    expect(task.assignee.relation).toMatchObject({ cardinality: 'one-to-one', targetType: 'person' });
  });
});

describe('data: values in the shape the service takes', () => {
  test('ranges and locations become JSON strings, booleans strings, an avatar one URL', async () => {
    const res = await running.data('task', { account });
    expect(res.status).toBe(200);
    expect(dataResponse.parse(res.body)).toBeTruthy();
    const [t1, t2] = res.body.items;
    expect(t1.span).toBe('{"start":"2020-01-22","end":"2020-08-19"}');
    expect(JSON.parse(t1.window)).toEqual({
      start: '2026-11-01T08:00:00.000Z',
      end: '2026-11-01T17:00:00.000Z',
    });
    expect(JSON.parse(t1.place)).toEqual({ longitude: 13.4, latitude: 52.5, fullAddress: 'Berlin' });
    expect(t1.done).toBe('false');
    expect(t1.face).toBe('https://example.com/ada.png');
    expect(t1.owner).toBe('ada@example.com');
    expect(t1.watchers).toEqual(['ada@example.com', 'grace@example.com']);
    expect(t2).toMatchObject({
      span: '{"start":"2021-01-01","end":"2021-01-02"}',
      place: '52.5, 13.4',
      done: 'true',
      face: 'https://example.com/first.png',
    });
  });

  test('delta rows are serialised too, removals untouched', async () => {
    const res = await running.data('task', { account, lastSynchronizedAt: '2026-11-20T10:00:00.000Z' });
    expect(res.body.synchronizationType).toBe('delta');
    expect(res.body.items[0]).toMatchObject({ span: expect.any(String), __syncAction: 'SET' });
    expect(res.body.items.at(-1)).toEqual({ id: 't3', __syncAction: 'REMOVE' });
  });
});

describe('config: the extras the service reads', () => {
  test('types carry description, default and isUser; filters defaultValue; the config a version', async () => {
    const res = await running.config(account);
    expect(res.status).toBe(200);
    expect(configResponse.parse(res.body)).toBeTruthy();
    expect(res.body.version).toBe(3);
    expect(res.body.types).toEqual([
      { id: 'person', name: 'Person', description: 'People of the tracker', default: true, isUser: true },
      { id: 'task', name: 'Task' },
    ]);
    expect(res.body.filters).toEqual([
      { id: 'state', title: 'State', type: 'list', optional: true, defaultValue: 'open' },
      { id: 'limit', title: 'Limit', type: 'number', optional: true, defaultValue: 10 },
    ]);
  });
});

describe('requests: everything the service sends is accepted', () => {
  test('a data request without pagination and lastSynchronizedAt is a first full page', async () => {
    const res = await running.post(PROTOCOL_PATHS.data, { requestedType: 'person', account });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ items: [{ id: 'p1' }], synchronizationType: 'full' });
  });

  test('a data request with schema, version, operationId and null types is served', async () => {
    const res = await running.post(PROTOCOL_PATHS.data, {
      requestedType: 'person',
      types: null,
      account,
      filter: null,
      operationId: 'op-1',
      version: '1.0.0',
      schema: { person: { id: { type: 'id', name: 'Id' } } },
      pagination: null,
      lastSynchronizedAt: null,
    });
    expect(res.status).toBe(200);
    expect(res.body.items).toHaveLength(1);
  });

  test('config with no account, a null account or an empty account answers the config', async () => {
    for (const body of [{}, { account: null }, { account: {} }]) {
      const res = await running.post(PROTOCOL_PATHS.config, body);
      expect(res.status).toBe(200);
      expect(res.body.types).toHaveLength(2);
    }
  });

  test('schema with null filter and account is answered', async () => {
    const res = await running.post(PROTOCOL_PATHS.schema, { types: ['person'], filter: null, account: null });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['person']);
  });

  test('system account keys never cause a 401 or 400, and handlers receive them', async () => {
    seen.length = 0;
    const validate = await running.validate('key', { key: 'k', ...systemKeys, state: 'oauth-state' });
    expect(validate.status).toBe(200);
    // What /validate returned earlier comes back with the account.
    const withMerged = { ...account, accountId: 'up-1' };
    const data = await running.data('person', { account: withMerged, filter: { state: 'open' } });
    expect(data.status).toBe(200);
    const execute = await running.execute('note', { text: 'hello' }, withMerged);
    expect(execute.status).toBe(200);
    expect(seen.map((s) => s.where)).toEqual(['validate', 'data', 'execute']);
    for (const s of seen) expect(s.account).toMatchObject({ key: 'k', ...systemKeys });
    expect(seen[1]!.account).toMatchObject({ accountId: 'up-1' });
    expect(seen[1]!.filter).toEqual({ state: 'open' });
  });

  test('action arguments reach run as strings: numbers and booleans are converted, objects refused', async () => {
    seen.length = 0;
    expect((await running.execute('note', { text: 42 }, account)).status).toBe(200);
    expect((await running.execute('note', { text: true }, account)).status).toBe(200);
    expect(seen.map((s) => s.args)).toEqual([{ text: '42' }, { text: 'true' }]);
    const refused = await running.execute('note', { text: ['a'] }, account);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ message: 'Argument "text" of action "note" must be text' });
  });

  test('an `auth` system key naming no authentication of the app is not a 401 by itself', async () => {
    const res = await running.data('person', { account: { ...account, auth: 'legacy-id' } });
    expect(res.status).toBe(200);
  });
});

describe('webhooks as the real service calls them', () => {
  test('install receives the events address; transform rows are serialised, account types included', async () => {
    let installedAt: string | undefined;
    const hooked = await testApp(
      defineApp({
        id: 'hooked',
        name: 'Hooked',
        ...descriptorBase,
        authentication: [auth.none()],
        sync: {
          types: {
            event: {
              name: 'Event',
              delta: true,
              fields: { id: field.id(), name: field.text(), span: field.dateRange() },
              async *data() {},
            },
          },
          accountTypes: () => ({
            extra: {
              name: 'Extra',
              delta: true,
              fields: { id: field.id(), name: field.text(), done: field.bool() },
              async *data() {},
            },
          }),
          webhooks: {
            install: async ({ url }) => {
              installedAt = url;
              return { id: 'wh', events: ['changed'], workspaceId: 'ws-1' };
            },
            uninstall: async () => {},
            verify: async () => 'wh',
            transform: async () => ({
              event: [{ id: 'e1', name: 'Launch', span: { start: '2026-01-01', end: '2026-01-02' } }],
              extra: [{ id: 'x1', name: 'X', done: true }],
            }),
          },
        },
      }),
    );
    try {
      const install = await hooked.post(PROTOCOL_PATHS.webhooks, {
        types: ['event'],
        filter: {},
        account: { auth: 'none', _id: 'a1', app: 'hooked', owner: 'u1', name: 'Public' },
        webhook: null,
        url: 'https://service.example.com/hooks/abc',
      });
      expect(install.status).toBe(200);
      expect(install.body).toEqual({ id: 'wh', events: ['changed'], workspaceId: 'ws-1' });
      expect(installedAt).toBe('https://service.example.com/hooks/abc');
      const transform = await hooked.post(PROTOCOL_PATHS.webhooksTransform, {
        params: {},
        payload: {},
        types: ['event', 'extra'],
        filter: {},
        account: {},
      });
      expect(transform.status).toBe(200);
      expect(transform.body).toEqual({
        data: {
          event: [
            {
              id: 'e1',
              name: 'Launch',
              span: '{"start":"2026-01-01","end":"2026-01-02"}',
              __syncAction: 'SET',
            },
          ],
          extra: [{ id: 'x1', name: 'X', done: 'true', __syncAction: 'SET' }],
        },
      });
    } finally {
      await hooked.close();
    }
  });
});
