import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { startWorkspace } from '../src/start-workspace.js';
import { describeEachDatabase, typeArgs, useWorkspace } from './support/databases.js';

describeEachDatabase('authentication, tokens, users, permissions, views', (target) => {
  const h = useWorkspace(target);

  it.each([
    [undefined, 401],
    ['', 401],
    ['Basic abc', 401],
    ['Token nope', 401],
    ['Bearer nope', 401],
  ])('Authorization %j → %i with {message}', async (header, status) => {
    const res = await fetch(`${h.url}/api/commands`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(header !== undefined ? { authorization: header } : {}),
      },
      body: '[]',
    });
    expect(res.status).toBe(status);
    expect(await res.json()).toMatchObject({ message: expect.any(String) });
  });

  it('Token and Bearer both authenticate', async () => {
    for (const scheme of ['Token', 'Bearer', 'token']) {
      const res = await fetch(`${h.url}/api/commands`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `${scheme} ${h.token}` },
        body: JSON.stringify([{ command: 'svc.schema/query' }]),
      });
      expect(res.status).toBe(200);
    }
  });

  it('unknown routes are 404 {message}', async () => {
    const res = await h.request('GET', '/api/nothing');
    expect(res.status).toBe(404);
    expect(res.body.message).toMatch(/No route/);
  });

  it('tokens: list, create through an existing token, at most 2 per user, delete', async () => {
    const { token: userToken } = await h.ws.createUser({ name: 'Tokie' });
    const list = await h.request('GET', '/api/tokens', undefined, userToken);
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(1);
    expect(list.body[0]).toEqual({
      id: expect.any(String),
      name: 'first token',
      creationDate: expect.any(String),
    });
    expect(JSON.stringify(list.body)).not.toContain(userToken);
    const created = await h.request('POST', '/api/tokens', { name: 'ci' }, userToken);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: expect.any(String), name: 'ci', token: expect.any(String) });
    const third = await h.request('POST', '/api/tokens', { name: 'one too many' }, userToken);
    expect(third.status).toBe(409);
    expect(third.body.code).toBe('limit-reached');
    expect((await h.request('POST', '/api/tokens', {}, null)).status).toBe(401);
    // The new token works, and stops working once deleted.
    expect((await h.request('GET', '/api/tokens', undefined, created.body.token)).status).toBe(200);
    expect((await h.request('DELETE', `/api/tokens/${created.body.id}`, undefined, userToken)).status).toBe(
      200,
    );
    expect((await h.request('GET', '/api/tokens', undefined, created.body.token)).status).toBe(401);
    expect((await h.request('DELETE', `/api/tokens/${randomUUID()}`, undefined, userToken)).status).toBe(404);
  });

  it('users: an admin creates them; everyone lists them; they are svc/user entities', async () => {
    const created = await h.request('POST', '/api/users', { name: 'Uma', email: 'uma@example.test' });
    expect(created.status).toBe(201);
    const { user, token } = created.body;
    expect(user).toMatchObject({ 'svc/id': expect.any(String), 'user/name': 'Uma', admin: false });
    expect((await h.request('POST', '/api/users', { name: 'X' }, token)).status).toBe(403);
    expect((await h.request('POST', '/api/users', { name: '' })).status).toBe(400);
    const list = await h.request('GET', '/api/users', undefined, token);
    expect(list.body).toContainEqual({ 'svc/id': user['svc/id'], 'user/name': 'Uma' });
    const rows = await h.run('svc.entity/query', {
      query: { 'q/from': 'svc/user', 'q/select': ['user/name'], 'q/where': ['=', ['svc/id'], '$u'] },
      params: { $u: user['svc/id'] },
    });
    expect(rows).toEqual([{ 'user/name': 'Uma' }]);
    const schema = await h.attempt('schema.type/create', typeArgs('u/x'), token);
    expect(schema).toMatchObject({ success: false, error: { code: 'forbidden' } });
  });

  // The spec's permission table, for a user without the admin role.
  describe('permissions of secured types and fields', () => {
    let userToken = '';
    beforeAll(async () => {
      userToken = (await h.ws.createUser({ name: 'Perm' })).token;
    });
    it.each([
      { typeSecured: false, fieldSecured: false, access: true },
      { typeSecured: true, fieldSecured: false, access: true },
      { typeSecured: false, fieldSecured: true, access: true },
      { typeSecured: true, fieldSecured: true, access: false },
    ])('type secured $typeSecured, field secured $fieldSecured → access $access', async (c) => {
      const type = `p${randomUUID().slice(0, 8)}/doc`;
      await h.run('schema.type/create', {
        ...typeArgs(type, [['p/secret', 'svc/text', { 'svc/secured?': c.fieldSecured }]]),
        'svc/meta': { 'svc/secured?': c.typeSecured },
      });
      const e = await h.run('svc.entity/create', {
        type,
        entity: { 'p/secret': 's3', [`${type.split('/')[0]}/name`]: 'n' },
      });
      const read = await h.attempt(
        'svc.entity/query',
        { query: { 'q/from': type, 'q/select': ['svc/id', 'p/secret'] } },
        userToken,
      );
      expect(read.success).toBe(c.access);
      if (c.access) expect(read.result).toEqual([{ 'svc/id': e['svc/id'], 'p/secret': 's3' }]);
      else expect(read.error.code).toBe('forbidden');
      const filter = await h.attempt(
        'svc.entity/query',
        {
          query: { 'q/from': type, 'q/select': ['svc/id'], 'q/where': ['=', ['p/secret'], '$s'] },
          params: { $s: 's3' },
        },
        userToken,
      );
      expect(filter.success).toBe(c.access);
      const write = await h.attempt(
        'svc.entity/update',
        { type, entity: { 'svc/id': e['svc/id'], 'p/secret': 'x' } },
        userToken,
      );
      expect(write.success).toBe(c.access);
      // Non-secured fields stay open; an entity result leaves out what the user may not see.
      const open = await h.attempt(
        'svc.entity/update',
        { type, entity: { 'svc/id': e['svc/id'] } },
        userToken,
      );
      expect(open.success).toBe(true);
      expect('p/secret' in open.result).toBe(c.access);
      // The admin sees everything.
      expect(
        (await h.attempt('svc.entity/query', { query: { 'q/from': type, 'q/select': ['p/secret'] } }))
          .success,
      ).toBe(true);
    });

    // A rich-text document inherits access from its entity: the same table, through every way to
    // reach a document (GET, PUT, the two batch document commands, the document type itself).
    it.each([
      { typeSecured: false, fieldSecured: false, access: true },
      { typeSecured: true, fieldSecured: false, access: true },
      { typeSecured: false, fieldSecured: true, access: true },
      { typeSecured: true, fieldSecured: true, access: false },
    ])(
      'a document of a rich-text field: type secured $typeSecured, field secured $fieldSecured → access $access',
      async (c) => {
        const type = `p${randomUUID().slice(0, 8)}/page`;
        await h.run('schema.type/create', {
          ...typeArgs(type),
          'svc/meta': { 'svc/secured?': c.typeSecured },
        });
        await h.run('schema.field/create', {
          'svc/holder-type': type,
          'svc/name': 'p/body',
          'svc/type': 'Collaboration~Documents/Document',
          'svc/meta': { 'svc/entity-component?': true, 'svc/secured?': c.fieldSecured },
        });
        const e = await h.run('svc.entity/create', { type, entity: {} });
        const [row] = await h.run('svc.entity/query', {
          query: {
            'q/from': type,
            'q/select': [{ 'p/body': ['Collaboration~Documents/secret'] }],
            'q/where': ['=', ['svc/id'], '$id'],
          },
          params: { $id: e['svc/id'] },
        });
        const secret = row['p/body']['Collaboration~Documents/secret'] as string;
        expect((await h.request('PUT', `/api/documents/${secret}`, { content: 'by admin' })).status).toBe(
          200,
        );
        const status = c.access ? 200 : 403;
        const get = await h.request('GET', `/api/documents/${secret}`, undefined, userToken);
        expect(get.status).toBe(status);
        if (c.access) expect(get.body.content).toBe('by admin');
        else expect(get.body).toEqual({ message: expect.any(String), code: 'forbidden' });
        expect(
          (await h.request('PUT', `/api/documents/${secret}`, { content: 'by user' }, userToken)).status,
        ).toBe(status);
        const batchRead = await h.request(
          'POST',
          '/api/documents/commands',
          { command: 'get-documents', args: [{ secret: randomUUID() }, { secret }] },
          userToken,
        );
        expect(batchRead.status).toBe(status);
        // A batch naming one closed document writes nothing at all.
        const free = randomUUID();
        const batchWrite = await h.request(
          'POST',
          '/api/documents/commands',
          {
            command: 'create-or-update-documents',
            args: [
              { secret: free, content: 'free' },
              { secret, content: 'by user again' },
            ],
          },
          userToken,
        );
        expect(batchWrite.status).toBe(status);
        const [docs] = (
          await h.request('POST', '/api/documents/commands', {
            command: 'get-documents',
            args: [{ secret }, { secret: free }],
          })
        ).body.map((d: { content: unknown }) => d.content);
        expect(docs).toBe(c.access ? 'by user again' : 'by admin');
        // The document type queried directly hides what the field hides.
        const direct = await h.run(
          'svc.entity/query',
          {
            query: {
              'q/from': 'Collaboration~Documents/Document',
              'q/select': ['svc/id'],
              'q/where': ['=', ['Collaboration~Documents/secret'], '$s'],
            },
            params: { $s: secret },
          },
          userToken,
        );
        expect(direct).toHaveLength(c.access ? 1 : 0);
        // The admin still reads it.
        expect((await h.request('GET', `/api/documents/${secret}`)).status).toBe(200);
      },
    );
    // A comment inherits access from the `comments/comments` field it hangs on: its entity, its
    // content (`comment/content`) and its document, however they are reached.
    it.each([
      { typeSecured: false, fieldSecured: false, access: true },
      { typeSecured: true, fieldSecured: false, access: true },
      { typeSecured: false, fieldSecured: true, access: true },
      { typeSecured: true, fieldSecured: true, access: false },
    ])(
      'a comment: type secured $typeSecured, comments field secured $fieldSecured → access $access',
      async (c) => {
        const type = `p${randomUUID().slice(0, 8)}/task`;
        await h.run('schema.type/create', {
          ...typeArgs(type),
          'svc/meta': { 'svc/secured?': c.typeSecured },
        });
        await h.run('svc.app/install-mixins', { types: { [type]: ['comments/comments-mixin'] } });
        await h.run('schema.field/set-meta', {
          'holder-type': type,
          name: 'comments/comments',
          key: 'svc/secured?',
          value: c.fieldSecured,
        });
        const task = await h.run('svc.entity/create', { type, entity: {} });
        const id = randomUUID();
        const secret = randomUUID();
        await h.run('svc.command/batch', {
          commands: [
            {
              command: 'svc.entity/create',
              args: { type: 'comments/comment', entity: { 'svc/id': id, 'comment/document-secret': secret } },
            },
            {
              command: 'svc.entity/add-collection-items',
              args: {
                type,
                field: 'comments/comments',
                entity: { 'svc/id': task['svc/id'] },
                items: [{ 'svc/id': id }],
              },
            },
          ],
        });
        expect((await h.request('PUT', `/api/documents/${secret}`, { content: 'hidden words' })).status).toBe(
          200,
        );
        const status = c.access ? 200 : 403;
        const get = await h.request('GET', `/api/documents/${secret}`, undefined, userToken);
        expect(get.status).toBe(status);
        if (c.access) expect(get.body.content).toBe('hidden words');
        expect(
          (await h.request('PUT', `/api/documents/${secret}`, { content: 'by user' }, userToken)).status,
        ).toBe(status);
        const direct = await h.run(
          'svc.entity/query',
          {
            query: {
              'q/from': 'comments/comment',
              'q/select': ['svc/id', 'comment/content'],
              'q/where': ['=', ['svc/id'], '$id'],
            },
            params: { $id: id },
          },
          userToken,
        );
        expect(direct).toEqual(c.access ? [{ 'svc/id': id, 'comment/content': 'by user' }] : []);
        // The admin still reads it, unchanged by the refused write.
        const admin = await h.request('GET', `/api/documents/${secret}`);
        expect(admin.body.content).toBe(c.access ? 'by user' : 'hidden words');
      },
    );
  });

  describe('views (JSON-RPC 2.0)', () => {
    const rpc = async (body: unknown) => (await h.request('POST', '/api/views/json-rpc', body)).body;
    const space = randomUUID();

    it('create-views, query-views (all, by ids, by publicIds), update-views, delete-views', async () => {
      const id = randomUUID();
      const created = await rpc({
        jsonrpc: '2.0',
        id: 1,
        method: 'create-views',
        params: {
          views: [
            {
              'svc/id': id,
              'svc/name': 'Board',
              'svc/type': 'board',
              'svc/meta': { a: 1 },
              'svc/container-app': { 'svc/id': space },
            },
          ],
        },
      });
      expect(created).toMatchObject({
        jsonrpc: '2.0',
        id: 1,
        result: [{ 'svc/id': id, 'svc/name': 'Board', 'svc/public-id': expect.any(String) }],
      });
      const publicId = created.result[0]['svc/public-id'];
      expect(
        (await rpc({ jsonrpc: '2.0', id: 2, method: 'query-views' })).result.map((v: any) => v['svc/id']),
      ).toContain(id);
      expect(
        (await rpc({ jsonrpc: '2.0', id: 3, method: 'query-views', params: { filter: { ids: [id] } } }))
          .result,
      ).toHaveLength(1);
      expect(
        (
          await rpc({
            jsonrpc: '2.0',
            id: 4,
            method: 'query-views',
            params: { filter: { publicIds: [publicId] } },
          })
        ).result[0]['svc/id'],
      ).toBe(id);
      const updated = await rpc({
        jsonrpc: '2.0',
        id: 5,
        method: 'update-views',
        params: { updates: [{ id, values: { 'svc/name': 'Renamed' } }] },
      });
      expect(updated.result[0]).toMatchObject({ 'svc/name': 'Renamed', 'svc/meta': { a: 1 } });
      expect(
        (await rpc({ jsonrpc: '2.0', id: 6, method: 'delete-views', params: { ids: [id] } })).result,
      ).toEqual({ deleted: [id] });
      expect(
        (await rpc({ jsonrpc: '2.0', id: 7, method: 'query-views', params: { filter: { ids: [id] } } }))
          .result,
      ).toEqual([]);
    });

    it('query-views filters by isPrivate (My space: no svc/container-app) and container (entity views)', async () => {
      const [inSpace, mine] = [randomUUID(), randomUUID()];
      await rpc({
        jsonrpc: '2.0',
        id: 1,
        method: 'create-views',
        params: {
          views: [
            { 'svc/id': inSpace, 'svc/name': 'Team board', 'svc/container-app': { 'svc/id': space } },
            { 'svc/id': mine, 'svc/name': 'My list', 'svc/type': 'list' },
          ],
        },
      });
      const query = async (filter: unknown) =>
        (await rpc({ jsonrpc: '2.0', id: 2, method: 'query-views', params: { filter } })).result.map(
          (v: any) => v['svc/id'],
        );
      const ids = [inSpace, mine];
      expect(await query({ ids, isPrivate: true })).toEqual([mine]);
      expect(await query({ ids, isPrivate: false })).toEqual([inSpace]);
      expect((await query({ ids })).sort()).toEqual([...ids].sort());
      // No view here is attached to an entity: a container filter matches none.
      const container = { type: 'entity', typeId: randomUUID(), publicIds: ['1', '2'] };
      expect(await query({ ids, container })).toEqual([]);
      for (const filter of [{ isPrivate: 'yes' }, { container: { type: 'app' } }]) {
        const res = await rpc({ jsonrpc: '2.0', id: 3, method: 'query-views', params: { filter } });
        expect(res.error).toMatchObject({ code: -32602, message: expect.stringContaining('filter.') });
      }
    });

    it.each([
      ['{bad json', -32700],
      [{ id: 1, method: 'query-views' }, -32600],
      [{ jsonrpc: '2.0', id: 1, method: 'drop-everything' }, -32601],
      [{ jsonrpc: '2.0', id: 1, method: 'create-views', params: { views: 'x' } }, -32602],
      [
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'update-views',
          params: { updates: [{ id: randomUUID(), values: {} }] },
        },
        -32004,
      ],
    ])('%j answers a JSON-RPC error object %i', async (body, code) => {
      const res = await h.request('POST', '/api/views/json-rpc', body);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ jsonrpc: '2.0', error: { code, message: expect.any(String) } });
    });
  });
});

describeEachDatabase('rate limit (3 requests per second per token)', (target) => {
  const h = useWorkspace(target, { rateLimit: 3 });

  it('answers 429 with Retry-After beyond the budget, per token, and lets requests through again after it', async () => {
    const started = performance.now();
    const responses = await Promise.all(Array.from({ length: 12 }, () => h.request('GET', '/api/tokens')));
    const elapsed = (performance.now() - started) / 1000;
    const allowed = responses.filter((r) => r.status === 200).length;
    const limited = responses.filter((r) => r.status === 429);
    // The bucket holds 3 and refills 3 per second while the burst lasts.
    expect(allowed).toBeLessThanOrEqual(3 + Math.ceil(3 * elapsed));
    expect(allowed + limited.length).toBe(12);
    for (const r of limited) {
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(r.body).toMatchObject({ message: expect.any(String), code: 'rate-limited' });
    }
    // Another token has its own budget.
    const { token } = await h.ws.createUser({ name: 'Other' });
    expect((await h.request('GET', '/api/tokens', undefined, token)).status).toBe(200);
    const wait = Number(limited[0]?.headers.get('retry-after') ?? 1);
    await new Promise((r) => setTimeout(r, wait * 1000 + 100));
    expect((await h.request('GET', '/api/tokens')).status).toBe(200);
  });

  if (target.name === 'postgres') {
    it('two processes sharing one Postgres share the budget', async () => {
      const second = await startWorkspace({
        database: h.database,
        rateLimit: 3,
        adminToken: h.token,
        webhooks: false,
        log: () => {},
      });
      try {
        await new Promise((r) => setTimeout(r, 1200));
        const started = performance.now();
        const urls = Array.from({ length: 12 }, (_, i) => (i % 2 ? second.url : h.url));
        const statuses = await Promise.all(
          urls.map(
            async (u) =>
              (await fetch(`${u}/api/tokens`, { headers: { authorization: `Token ${h.token}` } })).status,
          ),
        );
        const elapsed = (performance.now() - started) / 1000;
        expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(3 + Math.ceil(3 * elapsed));
      } finally {
        await second.close();
      }
    });
  }
});
