import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase, typeArgs, useWorkspace } from './support/databases.js';
import { hookReceiver } from './support/hook-receiver.js';
import { logIn } from './support/page-session.js';

// Who may read and change what, beyond the permission table of access.test.ts: webhook deliveries,
// relation partners, files, and the per-user resources (webhooks, views, automations, e-mails).

describeEachDatabase('access hardening', (target) => {
  const h = useWorkspace(target);
  const user = { id: '', token: '' };
  const other = { id: '', token: '' };
  // hx/vault is secured, with a secured field hx/code and an open one hx/note.
  const VAULT = 'hx/vault';

  beforeAll(async () => {
    for (const [who, name] of [
      [user, 'Uno'],
      [other, 'Otto'],
    ] as const) {
      const created = await h.ws.createUser({ name, email: `${name.toLowerCase()}@example.test` });
      who.id = created.user['svc/id'];
      who.token = created.token;
    }
    await h.run('schema.type/create', {
      ...typeArgs(VAULT, [
        ['hx/code', 'svc/text', { 'svc/secured?': true }],
        ['hx/note', 'svc/text'],
      ]),
      'svc/meta': { 'svc/secured?': true },
    });
  });

  describe('webhook deliveries carry what the subscriber may read', () => {
    const forUser = hookReceiver();
    const forAdmin = hookReceiver();
    beforeAll(async () => {
      await forUser.start();
      await forAdmin.start();
    });
    afterAll(async () => {
      await forUser.stop();
      await forAdmin.stop();
    });

    it('a non-admin subscriber gets no values of secured fields, and no effect that only touched them', async () => {
      const sub = await h.request('POST', '/api/webhooks/v2', { url: forUser.url, type: VAULT }, user.token);
      expect(sub.status).toBe(200);
      expect((await h.request('POST', '/api/webhooks/v2', { url: forAdmin.url, type: VAULT })).status).toBe(
        200,
      );
      const e = await h.run('svc.entity/create', {
        type: VAULT,
        entity: { 'hx/code': 'c1', 'hx/note': 'n1' },
      });
      const id = e['svc/id'];
      await h.run('svc.entity/update', { type: VAULT, entity: { 'svc/id': id, 'hx/code': 'c2' } });
      await h.run('svc.entity/update', {
        type: VAULT,
        entity: { 'svc/id': id, 'hx/code': 'c3', 'hx/note': 'n2' },
      });
      // The last command: once both have it, every earlier delivery was made.
      await h.run('svc.entity/update', { type: VAULT, entity: { 'svc/id': id, 'hx/note': 'n3' } });
      await forAdmin.until(4);
      await forUser.until(3);
      await h.ws.webhooks?.idle();
      const effects = (rx: typeof forUser) =>
        [...rx.bodies].sort((a, b) => a.body.sequenceId - b.body.sequenceId).map((d) => d.body.effects[0]);

      const admin = effects(forAdmin);
      expect(admin).toHaveLength(4);
      expect(admin[0].values).toMatchObject({ 'hx/code': 'c1', 'hx/note': 'n1' });
      expect(admin[1]).toMatchObject({ values: { 'hx/code': 'c2' }, valuesBefore: { 'hx/code': 'c1' } });

      const seen = effects(forUser);
      expect(seen).toHaveLength(3);
      expect(seen[0].effect).toBe('svc.entity/create');
      expect(seen[0].values['hx/note']).toBe('n1');
      expect(seen[0].values).not.toHaveProperty('hx/code');
      // The modification date an update carries is no secret, but on its own it is no change: the
      // update of the secured field alone is not delivered (3 deliveries, not 4).
      const date = expect.stringMatching(/Z$/);
      expect(seen[1]).toEqual({
        effect: 'svc.entity/update',
        id,
        type: VAULT,
        values: { 'hx/note': 'n2', 'svc/modification-date': date },
        valuesBefore: { 'hx/note': 'n1', 'svc/modification-date': date },
      });
      expect(seen[2].values).toEqual({ 'hx/note': 'n3', 'svc/modification-date': date });
      expect(JSON.stringify(forUser.bodies)).not.toMatch(/"c[123]"/);
    });

    it('only a user who may read every entity of a type subscribes to it (403 otherwise)', async () => {
      // Files held by a closed field make svc/file a type this user may not read in full.
      const type = `hf${randomUUID().slice(0, 6)}/box`;
      await h.run('schema.type/create', { ...typeArgs(type), 'svc/meta': { 'svc/secured?': true } });
      await h.run('svc.app/install-mixins', { types: { [type]: ['Files/Files-mixin'] } });
      await h.run('schema.field/set-meta', {
        'holder-type': type,
        name: 'Files/Files',
        key: 'svc/secured?',
        value: true,
      });
      const refused = await h.request(
        'POST',
        '/api/webhooks/v2',
        { url: forUser.url, type: 'svc/file' },
        user.token,
      );
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ message: expect.any(String), code: 'forbidden' });
      expect(
        (await h.request('POST', '/api/webhooks/v2', { url: forUser.url, type: 'svc/file' })).status,
      ).toBe(200);
    });
  });

  describe('a relation carries the permissions of its secured field to its partner', () => {
    const PERSON = 'hr/person';
    const SAFE = 'hr/safe';
    let person = '';
    let safe = '';
    beforeAll(async () => {
      const relation = randomUUID();
      await h.run('schema.type/create', typeArgs(PERSON));
      await h.run('schema.type/create', { ...typeArgs(SAFE), 'svc/meta': { 'svc/secured?': true } });
      await h.run('schema.field/create', {
        'svc/holder-type': SAFE,
        'svc/name': 'hr/keeper',
        'svc/type': PERSON,
        'svc/meta': { 'svc/relation': relation, 'svc/secured?': true },
      });
      await h.run('schema.field/create', {
        'svc/holder-type': PERSON,
        'svc/name': 'hr/safes',
        'svc/type': SAFE,
        'svc/meta': { 'svc/relation': relation, 'svc/collection?': true },
      });
      person = (await h.run('svc.entity/create', { type: PERSON, entity: { 'hr/name': 'P' } }))['svc/id'];
      safe = (
        await h.run('svc.entity/create', { type: SAFE, entity: { 'hr/keeper': { 'svc/id': person } } })
      )['svc/id'];
    });

    it('the reverse collection is closed to a non-admin: select, filter, add and remove', async () => {
      const select = await h.attempt(
        'svc.entity/query',
        { query: { 'q/from': PERSON, 'q/select': ['svc/id', { 'hr/safes': { 'q/select': ['svc/id'] } }] } },
        user.token,
      );
      expect(select).toMatchObject({ success: false, error: { code: 'forbidden' } });
      const plain = await h.attempt(
        'svc.entity/query',
        { query: { 'q/from': PERSON, 'q/select': ['svc/id', 'hr/safes'] } },
        user.token,
      );
      expect(plain).toMatchObject({ success: false, error: { code: 'forbidden' } });
      const filter = await h.attempt(
        'svc.entity/query',
        {
          query: {
            'q/from': PERSON,
            'q/select': ['svc/id'],
            'q/where': ['=', ['hr/safes', 'svc/id'], '$s'],
          },
          params: { $s: safe },
        },
        user.token,
      );
      expect(filter).toMatchObject({ success: false, error: { code: 'forbidden' } });
      for (const command of ['svc.entity/add-collection-items', 'svc.entity/remove-collection-items']) {
        const write = await h.attempt(
          command,
          { type: PERSON, field: 'hr/safes', entity: { 'svc/id': person }, items: [{ 'svc/id': safe }] },
          user.token,
        );
        expect(write).toMatchObject({ success: false, error: { code: 'forbidden' } });
      }
      // Unchanged, and the admin reads and writes both sides.
      const [row] = await h.run('svc.entity/query', {
        query: { 'q/from': SAFE, 'q/select': ['hr/keeper'], 'q/where': ['=', ['svc/id'], '$s'] },
        params: { $s: safe },
      });
      expect(row).toEqual({ 'hr/keeper': { 'svc/id': person } });
      expect(
        await h.run('svc.entity/query', {
          query: { 'q/from': PERSON, 'q/select': ['hr/safes'], 'q/where': ['=', ['svc/id'], '$p'] },
          params: { $p: person },
        }),
      ).toEqual([{ 'hr/safes': [{ 'svc/id': safe }] }]);
      // The person's other fields stay open.
      const open = await h.attempt(
        'svc.entity/query',
        {
          query: { 'q/from': PERSON, 'q/select': ['hr/name'], 'q/where': ['=', ['svc/id'], '$p'] },
          params: { $p: person },
        },
        user.token,
      );
      expect(open).toEqual({ success: true, result: [{ 'hr/name': 'P' }] });
    });
  });

  describe('files inherit access from the entities that hold them', () => {
    const upload = async (name: string) => {
      const form = new FormData();
      form.append('file', new Blob([`contents of ${name}`], { type: 'text/plain' }), name);
      const res = await fetch(`${h.url}/api/files`, {
        method: 'POST',
        headers: { authorization: `Token ${h.token}` },
        body: form,
      });
      expect(res.status).toBe(200);
      return (await res.json()) as Record<string, string>;
    };

    it.each([
      { typeSecured: false, fieldSecured: true, access: true },
      { typeSecured: true, fieldSecured: false, access: true },
      { typeSecured: true, fieldSecured: true, access: false },
    ])('Files/Files: type secured $typeSecured, field secured $fieldSecured → access $access', async (c) => {
      const type = `hf${randomUUID().slice(0, 6)}/folder`;
      await h.run('schema.type/create', { ...typeArgs(type), 'svc/meta': { 'svc/secured?': c.typeSecured } });
      await h.run('svc.app/install-mixins', { types: { [type]: ['Files/Files-mixin'] } });
      await h.run('schema.field/set-meta', {
        'holder-type': type,
        name: 'Files/Files',
        key: 'svc/secured?',
        value: c.fieldSecured,
      });
      const file = await upload(`${type.split('/')[0]}.txt`);
      const folder = await h.run('svc.entity/create', { type, entity: {} });
      await h.run('svc.entity/add-collection-items', {
        type,
        field: 'Files/Files',
        entity: { 'svc/id': folder['svc/id'] },
        items: [{ 'svc/id': file['svc/id'] }],
      });
      const down = await h.request('GET', `/api/files/${file['svc/secret']}`, undefined, user.token);
      expect(down.status).toBe(c.access ? 200 : 403);
      if (c.access) expect(down.body).toBe(`contents of ${file['svc/name']}`);
      else expect(down.body).toEqual({ message: expect.any(String), code: 'forbidden' });
      const listed = await h.run(
        'svc.entity/query',
        { query: { 'q/from': 'svc/file', 'q/select': ['svc/id', 'svc/secret'], 'q/limit': 'q/no-limit' } },
        user.token,
      );
      expect(listed.some((f: { 'svc/id': string }) => f['svc/id'] === file['svc/id'])).toBe(c.access);
      // The admin still lists and downloads it.
      expect((await h.request('GET', `/api/files/${file['svc/secret']}`)).status).toBe(200);
    });

    it('a file held by no closed field stays open', async () => {
      const file = await upload('loose.txt');
      expect((await h.request('GET', `/api/files/${file['svc/secret']}`, undefined, user.token)).status).toBe(
        200,
      );
    });
  });

  describe('per-user resources', () => {
    it('webhooks: a non-admin lists and deletes only their own; an admin all', async () => {
      const mine = (
        await h.request(
          'POST',
          '/api/webhooks/v2',
          { url: 'http://127.0.0.1:9/mine', type: VAULT },
          user.token,
        )
      ).body;
      const theirs = (
        await h.request(
          'POST',
          '/api/webhooks/v2',
          { url: 'http://127.0.0.1:9/theirs', type: VAULT },
          other.token,
        )
      ).body;
      const ids = async (token?: string) =>
        (await h.request('GET', '/api/webhooks/v2', undefined, token)).body.map((w: { id: number }) => w.id);
      expect(await ids(user.token)).toContain(mine.id);
      expect(await ids(user.token)).not.toContain(theirs.id);
      expect(await ids(other.token)).toEqual([theirs.id]);
      expect(await ids()).toEqual(expect.arrayContaining([mine.id, theirs.id]));
      const refused = await h.request('DELETE', `/api/webhooks/v2/${mine.id}`, undefined, other.token);
      expect(refused.status).toBe(404);
      expect(await ids(user.token)).toContain(mine.id);
      expect((await h.request('DELETE', `/api/webhooks/v2/${mine.id}`, undefined, user.token)).status).toBe(
        200,
      );
      expect((await h.request('DELETE', `/api/webhooks/v2/${theirs.id}`)).status).toBe(200);
      expect(await ids()).not.toContain(theirs.id);
    });

    it('views: a non-admin sees, changes and deletes only their own; an admin all', async () => {
      const rpc = async (method: string, params: unknown, token?: string) =>
        (await h.request('POST', '/api/views/json-rpc', { jsonrpc: '2.0', id: 1, method, params }, token))
          .body;
      const id = randomUUID();
      const created = await rpc(
        'create-views',
        { views: [{ 'svc/id': id, 'svc/name': 'Mine', 'svc/type': 'board' }] },
        user.token,
      );
      expect(created.result[0]['svc/id']).toBe(id);
      const seen = async (token?: string) =>
        (await rpc('query-views', {}, token)).result.map((v: Record<string, unknown>) => v['svc/id']);
      expect(await seen(user.token)).toContain(id);
      expect(await seen(other.token)).not.toContain(id);
      expect(await seen()).toContain(id);
      const update = await rpc(
        'update-views',
        { updates: [{ id, values: { 'svc/name': 'Taken over' } }] },
        other.token,
      );
      expect(update.error.code).toBe(-32004);
      expect((await rpc('delete-views', { ids: [id] }, other.token)).result).toEqual({ deleted: [] });
      const [view] = (await rpc('query-views', { filter: { ids: [id] } }, user.token)).result;
      expect(view['svc/name']).toBe('Mine');
      const renamed = await rpc('update-views', { updates: [{ id, values: { 'svc/name': 'By admin' } }] });
      expect(renamed.result[0]['svc/name']).toBe('By admin');
      expect((await rpc('delete-views', { ids: [id] }, user.token)).result).toEqual({ deleted: [id] });
    });

    it('automations: definitions (script code) and runs are for admins only', async () => {
      for (const path of ['/api/automations', '/api/automations/runs']) {
        const refused = await h.request('GET', path, undefined, user.token);
        expect(refused.status).toBe(403);
        expect(refused.body).toEqual({ message: expect.any(String), code: 'forbidden' });
        expect((await h.request('GET', path)).status).toBe(200);
      }
    });

    it('the pages show the same: a non-admin sees their own webhooks and no automation runs', async () => {
      const login = async (token: string) => {
        const { cookie } = await logIn(h.url, token);
        return async (path: string) => (await fetch(`${h.url}${path}`, { headers: { cookie } })).text();
      };
      await h.request(
        'POST',
        '/api/webhooks/v2',
        { url: 'http://127.0.0.1:9/page-mine', type: VAULT },
        user.token,
      );
      await h.request(
        'POST',
        '/api/webhooks/v2',
        { url: 'http://127.0.0.1:9/page-theirs', type: VAULT },
        other.token,
      );
      await h.run('schema.type/create', typeArgs('ho/item'));
      const button = await h.request('POST', '/api/automations', {
        name: 'Console writer',
        trigger: 'button',
        type: 'ho/item',
        action: { kind: 'script', code: `console.log('console-marker-42'); return { ok: true };` },
      });
      expect(button.status).toBe(201);
      const item = await h.run('svc.entity/create', { type: 'ho/item', entity: {} });
      const queued = await h.request(
        'POST',
        `/api/automations/${button.body.id}/run`,
        { entityIds: [item['svc/id']] },
        user.token,
      );
      expect(queued.status).toBe(202);
      const deadline = Date.now() + 20_000;
      let run: { state?: string; message?: string } = {};
      while (run.state !== 'done' && run.state !== 'failed' && Date.now() < deadline) {
        const runs = (await h.request('GET', `/api/automations/runs?automation=${button.body.id}`)).body;
        run = runs[0] ?? {};
        if (run.state !== 'done') await new Promise((r) => setTimeout(r, 200));
      }
      expect(run.state, run.message).toBe('done');
      const asUser = await login(user.token);
      const asAdmin = await login(h.token);
      const hooks = await asUser('/ui/webhooks');
      expect(hooks).toContain('page-mine');
      expect(hooks).not.toContain('page-theirs');
      expect(await asAdmin('/ui/webhooks')).toContain('page-theirs');
      expect(await asUser('/ui/automations')).not.toContain('console-marker-42');
      expect(await asAdmin('/ui/automations')).toContain('console-marker-42');
    });

    it('e-mails: svc/user shows them to admins only, as GET /api/users does', async () => {
      const byQuery = await h.attempt(
        'svc.entity/query',
        { query: { 'q/from': 'svc/user', 'q/select': ['user/name', 'user/email'] } },
        user.token,
      );
      expect(byQuery).toMatchObject({ success: false, error: { code: 'forbidden' } });
      const filter = await h.attempt(
        'svc.entity/query',
        {
          query: { 'q/from': 'svc/user', 'q/select': ['svc/id'], 'q/where': ['=', ['user/email'], '$e'] },
          params: { $e: 'otto@example.test' },
        },
        user.token,
      );
      expect(filter).toMatchObject({ success: false, error: { code: 'forbidden' } });
      const names = await h.run(
        'svc.entity/query',
        {
          query: { 'q/from': 'svc/user', 'q/select': ['user/name'], 'q/where': ['=', ['svc/id'], '$u'] },
          params: { $u: other.id },
        },
        user.token,
      );
      expect(names).toEqual([{ 'user/name': 'Otto' }]);
      const listed = (await h.request('GET', '/api/users', undefined, user.token)).body;
      expect(JSON.stringify(listed)).not.toContain('@example.test');
      const asAdmin = await h.run('svc.entity/query', {
        query: { 'q/from': 'svc/user', 'q/select': ['user/email'], 'q/where': ['=', ['svc/id'], '$u'] },
        params: { $u: other.id },
      });
      expect(asAdmin).toEqual([{ 'user/email': 'otto@example.test' }]);
      const adminList = (await h.request('GET', '/api/users')).body;
      expect(adminList).toContainEqual({
        'svc/id': other.id,
        'user/name': 'Otto',
        'user/email': 'otto@example.test',
      });
    });
  });
});
