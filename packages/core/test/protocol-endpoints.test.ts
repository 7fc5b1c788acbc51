import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { configResponse, dataResponse, descriptor, schemaResponse } from '../src/protocol/index.js';
import { descriptorBase, emptyType } from './fixtures/minimal.js';
import { type TestApp, testApp } from '../src/testing/index.js';
import { TOKEN, trackerApp } from './fixtures/tracker-app.js';
import { InvalidAccountError, auth, defineApp, input } from '../src/index.js';

let app: TestApp;
const account = { token: TOKEN };
beforeAll(async () => {
  app = await testApp(trackerApp());
});
afterAll(() => app.close());

describe('GET /', () => {
  test('answers the descriptor with responsibleFor derived from the definition', async () => {
    const res = await app.descriptor();
    expect(res.status).toBe(200);
    expect(descriptor.parse(res.body)).toBeTruthy();
    expect(res.body).toMatchObject({
      id: 'tracker',
      name: 'Tracker',
      version: '1.2.3',
      sources: [],
      responsibleFor: { dataSynchronization: true, automations: true },
      authentication: [
        {
          id: 'token',
          name: 'API token',
          fields: [
            { id: 'token', name: 'Token', type: 'password', description: 'Your API token', optional: false },
            { id: 'help', type: 'link', value: 'https://tracker.example.com/tokens' },
          ],
        },
      ],
      actions: [
        {
          action: 'comment',
          args: [
            { id: 'issue', type: 'text' },
            { id: 'text', type: 'textarea', textTemplateSupported: true },
            { id: 'mood', type: 'text' },
          ],
        },
      ],
    });
  });

  test('a public app lists one authentication "none" without fields', async () => {
    const pub = await testApp(
      defineApp({
        id: 'pub',
        name: 'Pub',
        ...descriptorBase,
        authentication: [auth.none()],
        sync: {
          types: { t: emptyType },
        },
      }),
    );
    const res = await pub.descriptor();
    expect(res.body.authentication).toEqual([{ id: 'none', name: 'Public access' }]);
    expect(res.body.responsibleFor).toEqual({ dataSynchronization: true, automations: false });
    expect(res.body).not.toHaveProperty('actions');
    expect((await pub.validate('none', {})).body).toEqual({ name: 'Public access' });
    await pub.close();
  });
});

describe('secret account fields', () => {
  test('a text field marked secret is redacted from error messages like a password', async () => {
    const hooks = await testApp(
      defineApp({
        id: 'hooks',
        name: 'Hooks',
        ...descriptorBase,
        authentication: [
          auth.fields({
            id: 'hook',
            name: 'Webhook',
            fields: { url: input.text({ name: 'Webhook URL', secret: true }) },
            validate: (account) => {
              throw new InvalidAccountError(`${account.url} answered 404`);
            },
          }),
        ],
        actions: { ping: { name: 'Ping', args: {}, run: () => {} } },
      }),
    );
    const res = await hooks.validate('hook', { url: 'https://chat.example.com/hooks/T0-secret-path' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: '[redacted] answered 404' });
    await hooks.close();
  });
});

describe('GET /logo', () => {
  const base = {
    id: 'l',
    name: 'L',
    ...descriptorBase,
    authentication: [auth.none()],
  };
  const sync = {
    types: { t: emptyType },
  };
  test('an SVG is served as image/svg+xml', async () => {
    const res = await app.request('GET', '/logo');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('image/svg+xml');
    expect(res.body).toContain('<svg');
  });
  test('a URL is a 302 redirect', async () => {
    const a = await testApp(defineApp({ ...base, logo: { url: 'https://cdn.example.com/logo.svg' }, sync }));
    const res = await a.request('GET', '/logo');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('https://cdn.example.com/logo.svg');
    await a.close();
  });
  test('no logo is a 204', async () => {
    const a = await testApp(defineApp({ ...base, sync }));
    expect((await a.request('GET', '/logo')).status).toBe(204);
    await a.close();
  });
});

describe('POST /validate', () => {
  test('a good account answers its name and extra fields to merge', async () => {
    const res = await app.validate('token', { token: TOKEN, owner: 'system-key' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ name: 'Ada (tracker)', accountId: 'u-1' });
  });
  test('a refused account is a 401 {message} without the secret', async () => {
    const res = await app.validate('token', { token: 'wrong-token-value' });
    expect(res.status).toBe(401);
    expect(res.body.message).toBe('Token [redacted] was refused');
  });
  test('a missing required field is a 401 naming the field', async () => {
    const res = await app.validate('token', {});
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: 'Account field "token" is required' });
  });
  test('an unknown authentication id is a 400', async () => {
    const res = await app.validate('basic', { token: TOKEN });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('Unknown authentication id "basic"');
  });
});

describe('POST config and schema', () => {
  test('config lists types, filters and webhook support', async () => {
    const res = await app.config(account);
    expect(res.status).toBe(200);
    expect(configResponse.parse(res.body)).toBeTruthy();
    expect(res.body.types).toEqual([
      { id: 'project', name: 'Project' },
      { id: 'issue', name: 'Issue' },
    ]);
    expect(res.body.filters).toContainEqual({
      id: 'component',
      title: 'Components',
      type: 'multidropdown',
      optional: true,
      datalist: true,
      datalist_requires: ['project'],
    });
    expect(res.body.webhooks).toEqual({ enabled: true });
  });
  test('schema answers every requested type, with __syncAction for delta types', async () => {
    const res = await app.schema(['issue', 'project'], { account });
    expect(res.status).toBe(200);
    expect(schemaResponse.parse(res.body)).toBeTruthy();
    expect(Object.keys(res.body)).toEqual(['issue', 'project']);
    expect(res.body.issue.project).toEqual({
      id: 'project',
      name: 'Project',
      type: 'text',
      relation: {
        cardinality: 'many-to-one',
        name: 'Project',
        targetType: 'project',
        targetName: 'Issues',
        targetFieldId: 'id',
      },
    });
    expect(res.body.issue.points).toEqual({
      id: 'points',
      name: 'Points',
      type: 'number',
      subType: 'integer',
    });
    expect(res.body.issue.__syncAction).toEqual({ id: '__syncAction', type: 'text', name: 'Sync Action' });
    expect(res.body.project).not.toHaveProperty('__syncAction');
  });
  test('an unknown type in schema is a 404', async () => {
    const res = await app.schema(['issue', 'nope']);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'Unknown type "nope"' });
  });
  test('a data request runs validateFilter before the first page', async () => {
    const res = await app.data('issue', { account, filter: { behaviour: 'invalid' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'Behaviour "invalid" is not allowed' });
  });
  test('schema without types is a 400 naming the field', async () => {
    const res = await app.post('/api/v1/synchronizer/schema', { account });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Invalid request: "types" is required');
  });
});

describe('POST datalist and filter/validate', () => {
  test('a datalist answers {title, value} with values as strings', async () => {
    const res = await app.datalist('project', { account });
    expect(res.body).toEqual({
      items: [
        { title: 'Weft', value: 'p1' },
        { title: 'Loom', value: 'p2' },
      ],
    });
  });
  test('dependsOn reaches the handler', async () => {
    expect((await app.datalist('component', { account, dependsOn: { project: 'p1' } })).body.items).toEqual([
      { title: 'Core', value: 'core' },
    ]);
    expect((await app.datalist('component', { account, dependsOn: { project: 'p2' } })).body.items).toEqual([
      { title: 'Other', value: '7' },
    ]);
  });
  test('a field without a datalist is a 404', async () => {
    const res = await app.datalist('updated', { account });
    expect(res.status).toBe(404);
    expect(res.body.message).toContain('"updated"');
  });
  test('filter/validate answers 204 for a good filter and 400 {message} for a bad one', async () => {
    const ok = await app.post('/api/v1/synchronizer/filter/validate', {
      types: ['issue'],
      account,
      filter: { project: 'p1' },
    });
    expect(ok.status).toBe(204);
    const bad = await app.post('/api/v1/synchronizer/filter/validate', {
      account,
      filter: { behaviour: 'invalid' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ message: 'Behaviour "invalid" is not allowed' });
    const wrongType = await app.post('/api/v1/synchronizer/filter/validate', {
      account,
      filter: { updated: 'yesterday' },
    });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.message).toBe('Filter "updated" must be object');
  });
});

describe('POST data', () => {
  test('pages follow nextPageConfig to the end and match the protocol shape', async () => {
    const first = await app.data('issue', { account });
    expect(first.status).toBe(200);
    expect(dataResponse.parse(first.body)).toBeTruthy();
    expect(first.body.items).toHaveLength(10);
    expect(first.body.synchronizationType).toBe('full');
    // A signed page state (see page-state.ts): a JSON object the service hands back as it is.
    expect(first.body.pagination).toEqual({
      hasNext: true,
      nextPageConfig: { weft: 2, type: 'issue', state: expect.any(String), sig: expect.any(String) },
    });
    const all = await app.sync('issue', { account });
    expect(all.pages).toBe(3);
    expect(all.items.map((i) => i.id)).toEqual(Array.from({ length: 25 }, (_, n) => `i-${n}`));
  });
  test('a delta sync sends SET and REMOVE rows and since = lastSynchronizedAt - margin', async () => {
    const res = await app.data('issue', { account, lastSynchronizedAt: '2026-11-20T10:00:00.000Z' });
    expect(res.body).toEqual({
      items: [
        { id: 'i-1', name: 'changed since 2026-11-20T09:00:00.000Z', points: 5, __syncAction: 'SET' },
        { id: 'i-2', __syncAction: 'REMOVE' },
      ],
      pagination: { hasNext: false },
      synchronizationType: 'delta',
    });
  });
  test('a type without delta support answers full even with lastSynchronizedAt', async () => {
    const res = await app.data('project', { account, lastSynchronizedAt: '2026-11-20T10:00:00.000Z' });
    expect(res.body.synchronizationType).toBe('full');
    expect(res.body.items[0]).not.toHaveProperty('__syncAction');
  });
  test('pagination of another type or of another app is a 400', async () => {
    const issued = (await app.data('issue', { account })).body.pagination.nextPageConfig;
    const other = await app.data('project', { account, pagination: issued });
    expect(other.status).toBe(400);
    expect(other.body.message).toContain('belongs to type "issue"');
    const foreign = await app.data('issue', { account, pagination: { page: 2 } });
    expect(foreign.status).toBe(400);
  });
  test('an invalid lastSynchronizedAt is a 400', async () => {
    const res = await app.data('issue', { account, lastSynchronizedAt: 'last tuesday' });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('lastSynchronizedAt');
  });
  test('an item without id is a 500 naming the type', async () => {
    const res = await app.data('issue', { account, filter: { behaviour: 'no-id' } });
    expect(res.status).toBe(500);
    expect(res.body.message).toContain('type "issue" yielded an item without `id`');
  });
});
