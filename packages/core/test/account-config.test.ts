// Types and filters that depend on the account: a database app lists the tables of the user's
// database. Over real HTTP, with the handlers counting their calls to observe the cache.
import { afterEach, describe, expect, test } from 'vitest';
import { type TestApp, testApp } from '../src/testing/index.js';
import { auth, defineApp, field, input } from '../src/index.js';
import type { AccountTypeDefinition, InputFields } from '../src/index.js';
import { compileApp } from '../src/startup/compile-app.js';
import { silentLogger } from '../src/logging/logger.js';
import { descriptorBase } from './fixtures/minimal.js';

/** The "upstream": the tables of each database, by connection string. */
const DATABASES: Record<string, Record<string, string[]>> = {
  'db://shop': { orders: ['o1', 'o2', 'o3'], customers: ['c1'] },
  'db://blog': { posts: ['p1'] },
};

function databaseApp(options: { cacheSeconds?: number; broken?: unknown } = {}) {
  const calls = { types: 0, filters: 0 };
  const app = defineApp({
    id: 'db',
    name: 'Database',
    ...descriptorBase,
    authentication: [
      auth.fields({
        id: 'db',
        name: 'Database',
        fields: { connection: input.password({ name: 'Connection string' }) },
      }),
    ],
    sync: {
      ...(options.cacheSeconds === undefined ? {} : { accountCacheSeconds: options.cacheSeconds }),
      filters: { limit: input.number({ name: 'Limit', optional: true }) },
      accountFilters: ({ account }) => {
        calls.filters += 1;
        const tables = Object.keys(DATABASES[account.connection] ?? {});
        return { schemaName: input.list({ name: 'Schema', optional: tables.length <= 1 }) };
      },
      types: {
        // One static type next to the account's tables.
        database: {
          name: 'Database',
          fields: { id: field.id(), name: field.text() },
          async *data({ account }) {
            yield { id: account.connection, name: account.connection };
          },
        },
      },
      async accountTypes({ account, filter }) {
        calls.types += 1;
        await new Promise((resolve) => setTimeout(resolve, 20));
        if (options.broken) return options.broken as never;
        const tables = DATABASES[account.connection] ?? {};
        const types: Record<string, AccountTypeDefinition<typeof account, typeof filter>> = {};
        for (const [table, rows] of Object.entries(tables)) {
          types[table] = {
            name: table[0]!.toUpperCase() + table.slice(1),
            description: `Rows of ${table}`,
            fields: {
              id: field.id(),
              name: field.title(),
              database: field.relation({ to: 'database', cardinality: 'many-to-one', targetName: table }),
            },
            async *data(ctx) {
              const limit = typeof ctx.filter.limit === 'number' ? ctx.filter.limit : rows.length;
              yield rows
                .slice(0, limit)
                .map((id) => ({ id, name: `${ctx.requestedType} ${id}`, database: account.connection }));
            },
          };
        }
        return types;
      },
    },
  });
  return { app, calls };
}

let running: TestApp | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

const shop = { connection: 'db://shop', auth: 'db', _id: 'acc-1', owner: 'u-1' };
const blog = { connection: 'db://blog' };

describe('account-dependent types', () => {
  test('config lists the static types and the account’s own types and filters', async () => {
    const { app } = databaseApp();
    running = await testApp(app);
    const res = await running.config(shop);
    expect(res.status).toBe(200);
    expect(res.body.types).toEqual([
      { id: 'database', name: 'Database' },
      { id: 'orders', name: 'Orders', description: 'Rows of orders' },
      { id: 'customers', name: 'Customers', description: 'Rows of customers' },
    ]);
    expect(res.body.filters.map((f: { id: string }) => f.id)).toEqual(['limit', 'schemaName']);
    const other = await running.config(blog);
    expect(other.body.types.map((t: { id: string }) => t.id)).toEqual(['database', 'posts']);
    // Without an account there are only the static types.
    const none = await running.post('/api/v1/synchronizer/config', {});
    expect(none.body.types.map((t: { id: string }) => t.id)).toEqual(['database']);
  });

  test('schema and data requests serve a type that exists only for that account', async () => {
    const { app } = databaseApp();
    running = await testApp(app);
    const schema = await running.schema(['database', 'orders'], {
      account: shop,
      filter: { schemaName: 'x' },
    });
    expect(schema.status).toBe(200);
    expect(schema.body.orders).toMatchObject({
      id: { type: 'id' },
      name: { type: 'text', subType: 'title' },
      database: { relation: { targetType: 'database' } },
    });
    const sync = await running.sync('orders', { account: shop, filter: { limit: 2, schemaName: 'x' } });
    expect(sync.items).toEqual([
      { id: 'o1', name: 'orders o1', database: 'db://shop' },
      { id: 'o2', name: 'orders o2', database: 'db://shop' },
    ]);
    // Another account has no such table.
    const missing = await running.data('orders', { account: blog, filter: { schemaName: 'x' } });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: 'Unknown type "orders"' });
    const schemaMissing = await running.schema(['orders'], { account: blog });
    expect(schemaMissing.status).toBe(404);
  });

  test('filters of the account are checked like static ones', async () => {
    const { app } = databaseApp();
    running = await testApp(app);
    // The shop has two tables, so its schemaName filter is required.
    const res = await running.data('orders', { account: shop, filter: {} });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Filter "schemaName" is required');
  });

  test('results are cached per account: concurrent and repeated requests share one call', async () => {
    const { app, calls } = databaseApp();
    running = await testApp(app);
    const filter = { schemaName: 'x' };
    const answers = await Promise.all([
      running.data('orders', { account: shop, filter }),
      running.data('customers', { account: shop, filter }),
      running.data('orders', { account: shop, filter }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(calls.types).toBe(1);
    await running.data('orders', { account: shop, filter });
    expect(calls.types).toBe(1);
    // The same account with its keys in another order is the same account.
    await running.data('orders', {
      account: { owner: 'u-1', _id: 'acc-1', auth: 'db', connection: 'db://shop' },
      filter,
    });
    expect(calls.types).toBe(1);
    await running.data('posts', { account: blog, filter: {} });
    expect(calls.types).toBe(2);
    expect(calls.filters).toBe(2);
  });

  test('accountCacheSeconds: 0 asks on every request', async () => {
    const { app, calls } = databaseApp({ cacheSeconds: 0 });
    running = await testApp(app);
    await running.config(shop);
    await running.config(shop);
    expect(calls.types).toBe(2);
  });

  test('an entry expires after accountCacheSeconds', async () => {
    const { app, calls } = databaseApp({ cacheSeconds: 0.05 });
    running = await testApp(app);
    await running.config(shop);
    await new Promise((resolve) => setTimeout(resolve, 120));
    await running.config(shop);
    expect(calls.types).toBe(2);
  });

  test('an invalid definition from accountTypes is a 500 naming every problem, and is not cached', async () => {
    const { app, calls } = databaseApp({
      broken: {
        orders: {
          name: 'Orders',
          fields: {
            id: field.id(),
            state: field.workflow({ options: [{ name: 'Open' }] }),
            owner: field.relation({ to: 'nowhere', cardinality: 'many-to-one', targetName: 'Orders' }),
          },
          data: 'not a function',
        },
        database: { name: 'Again', fields: { id: field.id(), name: field.text() }, async *data() {} },
      },
    });
    running = await testApp(app);
    const res = await running.config(shop);
    expect(res.status).toBe(500);
    const message: string = res.body.message;
    expect(message).toContain('accountTypes.orders.data: must be a function');
    expect(message).toContain('accountTypes.orders.fields: every type needs a `name` field');
    expect(message).toContain(
      'accountTypes.orders.fields.state.options: a workflow needs exactly one `default`',
    );
    expect(message).toContain('accountTypes.orders.fields.owner.relation: targets type "nowhere"');
    expect(message).toContain('accountTypes.database: is also a type of `sync.types`');
    await running.config(shop);
    expect(calls.types).toBe(2);
  });

  test('accountTypes returning something other than an object is a 500', async () => {
    const { app } = databaseApp({ broken: [1, 2] });
    running = await testApp(app);
    const res = await running.schema(['orders'], { account: shop, filter: { schemaName: 'x' } });
    expect(res.status).toBe(500);
    expect(res.body.message).toContain('accountTypes: must return an object of types keyed by type id');
  });

  test('the cache key is a hash: the account’s secret is not kept as a key', async () => {
    const { app } = databaseApp();
    const compiled = compileApp(app as never);
    const scope = { signal: new AbortController().signal, log: silentLogger };
    await compiled.accountConfig.types(shop, {}, scope);
    const keys = [...(compiled.accountConfig as unknown as { cache: Map<string, unknown> }).cache.keys()];
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(keys[0]).not.toContain('shop');
  });
});

describe('account-dependent filters', () => {
  function filterApp() {
    return defineApp({
      id: 'f',
      name: 'F',
      ...descriptorBase,
      authentication: [
        auth.fields({ id: 'db', name: 'Db', fields: { connection: input.password({ name: 'Connection' }) } }),
      ],
      sync: {
        types: {
          database: { name: 'Database', fields: { id: field.id(), name: field.text() }, async *data() {} },
        },
        accountFilters: ({ account }): InputFields =>
          account.connection === 'db://broken'
            ? {
                orphan: input.list({ name: 'Orphan', datalist: true }),
                bad: input.highlightText({} as never),
              }
            : {
                table: input.list({ name: 'Table', datalist: true, optional: true, defaultValue: 'orders' }),
              },
        datalists: {
          table: async ({ account }) =>
            Object.keys(DATABASES[account.connection] ?? {}).map((t) => ({ title: t, value: t })),
        },
      },
    });
  }

  test('a datalist filter of the account is in the config and its list is served', async () => {
    running = await testApp(filterApp());
    const config = await running.config(shop);
    expect(config.body.filters).toEqual([
      { id: 'table', title: 'Table', type: 'list', optional: true, datalist: true, defaultValue: 'orders' },
    ]);
    const list = await running.datalist('table', { account: shop });
    expect(list.body).toEqual({
      items: [
        { title: 'orders', value: 'orders' },
        { title: 'customers', value: 'customers' },
      ],
    });
  });

  test('an invalid filter definition from accountFilters is a 500 naming the problems', async () => {
    running = await testApp(filterApp());
    const res = await running.config({ connection: 'db://broken' });
    expect(res.status).toBe(500);
    expect(res.body.message).toContain(
      'accountFilters.orphan: is a datalist filter but sync.datalists.orphan has no handler',
    );
    expect(res.body.message).toContain('accountFilters.bad.name');
  });
});

describe('the account cache and abandoned requests', () => {
  test('a request sharing a call with an abandoned request asks again instead of failing with it', async () => {
    let calls = 0;
    const app = defineApp({
      id: 'shared',
      name: 'Shared',
      ...descriptorBase,
      authentication: [auth.none()],
      sync: {
        types: {},
        async accountTypes({ signal }) {
          calls += 1;
          if (calls === 1) {
            // The first call hangs until its request is abandoned.
            await new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
          }
          return { t: { name: 'T', fields: { id: field.id(), name: field.text() }, async *data() {} } };
        },
      },
    });
    const resolver = compileApp(app as never).accountConfig;
    const first = new AbortController();
    const second = new AbortController();
    const abandoned = resolver.types({}, {}, { signal: first.signal, log: silentLogger });
    const waiting = resolver.types({}, {}, { signal: second.signal, log: silentLogger });
    first.abort(new Error('The service closed the connection'));
    await expect(abandoned).rejects.toThrow('The service closed the connection');
    expect([...(await waiting).keys()]).toEqual(['t']);
    expect(calls).toBe(2);
  });
});
