import { expect, it } from 'vitest';
import { describeEachDatabase, typeArgs, useWorkspace } from './support/databases.js';
import { logIn } from './support/page-session.js';

// The automation forms over real HTTP: what the page refuses (bad forms, non-admins, forms
// without the session's form token) and how, and the JSON API's edit and on/off calls behind the
// same store. The happy paths run in Chromium (page-automations-chromium.test.ts).

describeEachDatabase('page automation forms', (target) => {
  const h = useWorkspace(target);
  const TYPE = 'forms/book';
  const SECRET = 'https://hooks.example.com/services/T0/B0/planted-secret-path';

  const form = async (
    session: { cookie: string; formToken: string },
    path: string,
    fields: Record<string, string>,
  ) => {
    const res = await fetch(`${h.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: session.cookie },
      body: new URLSearchParams({ csrf: session.formToken, ...fields }).toString(),
      redirect: 'manual',
    });
    return { status: res.status, location: res.headers.get('location'), text: await res.text() };
  };
  const appRule = (extra: Record<string, string> = {}) => ({
    name: 'Chat me',
    trigger: 'created',
    type: TYPE,
    kind: 'app',
    url: 'http://127.0.0.1:9/',
    action: 'send-message',
    args: 'text: New {{Name}}',
    account: `webhookUrl: ${SECRET}`,
    enabled: 'true',
    ...extra,
  });

  it('creates a rule from the form, sealed, and refuses bad forms with the reason and no secret', async () => {
    await h.run('schema.type/create', typeArgs(TYPE));
    const admin = await logIn(h.url, h.token);
    const created = await form(admin, '/ui/automations/new', appRule());
    expect(created).toMatchObject({ status: 303, location: '/ui/automations' });
    const [rule] = (await h.request('GET', '/api/automations')).body;
    expect(rule).toMatchObject({
      name: 'Chat me',
      trigger: 'created',
      type: TYPE,
      enabled: true,
      action: { kind: 'app', args: { text: 'New {{Name}}' }, accountFields: ['webhookUrl'] },
    });

    // A line without "name:" is refused by its number; an account line is never quoted back.
    const badAccount = await form(
      admin,
      '/ui/automations/new',
      appRule({ account: SECRET.replaceAll(':', '') }),
    );
    expect(badAccount.status).toBe(400);
    expect(badAccount.text).toContain('Line 1 of the account is not');
    expect(badAccount.text).not.toContain('planted-secret-path');
    // The store's own checks, as the JSON API's: a type name, a field only on updated rules.
    const badType = await form(admin, '/ui/automations/new', appRule({ type: 'no-slash' }));
    expect(badType.status).toBe(400);
    expect(badType.text).toContain('type: a type name');
    expect(badType.text).toContain('value="no-slash"');
    const badField = await form(admin, '/ui/automations/new', appRule({ field: 'forms/name' }));
    expect(badField.status).toBe(400);
    expect(badField.text).toContain('field applies to updated rules only');
    const badKind = await form(admin, '/ui/automations/new', appRule({ kind: 'shell' }));
    expect(badKind.status).toBe(400);
    for (const page of [badAccount, badType, badField, badKind])
      expect(page.text).not.toMatch(/at .*\.ts:\d+/);
    expect((await h.request('GET', '/api/automations')).body).toHaveLength(1);

    // The edit form shows the account's field names only; saving with an empty box keeps it.
    const edit = await fetch(`${h.url}/ui/automations/${rule.id}/edit`, {
      headers: { cookie: admin.cookie },
    });
    const editPage = await edit.text();
    expect(editPage).toContain('stored (webhookUrl): leave empty to keep it');
    expect(editPage).not.toContain('planted-secret-path');
    const saved = await form(
      admin,
      `/ui/automations/${rule.id}/edit`,
      appRule({ name: 'Chat me now', account: '' }),
    );
    expect(saved.status).toBe(303);
    const [after] = (await h.request('GET', '/api/automations')).body;
    expect(after).toMatchObject({ name: 'Chat me now', action: { accountFields: ['webhookUrl'] } });
  });

  it('lets only admins manage automations, and only with the session form token', async () => {
    const [rule] = (await h.request('GET', '/api/automations')).body;
    const { token } = await h.ws.createUser({ name: 'Reader' });
    const reader = await logIn(h.url, token);
    expect((await fetch(`${h.url}/ui/automations/new`, { headers: { cookie: reader.cookie } })).status).toBe(
      403,
    );
    expect((await form(reader, '/ui/automations/new', appRule({ name: 'Mine' }))).status).toBe(403);
    expect((await form(reader, `/ui/automations/${rule.id}/enabled`, { enabled: 'false' })).status).toBe(403);
    expect((await form(reader, `/ui/automations/${rule.id}/delete`, {})).status).toBe(403);
    const list = await (
      await fetch(`${h.url}/ui/automations`, { headers: { cookie: reader.cookie } })
    ).text();
    expect(list).not.toContain('/ui/automations/new');

    const admin = await logIn(h.url, h.token);
    const forged = await form(
      { ...admin, formToken: 'not-the-token' },
      `/ui/automations/${rule.id}/delete`,
      {},
    );
    expect(forged.status).toBe(403);
    expect((await form(admin, `/ui/automations/${rule.id}/enabled`, { enabled: 'maybe' })).status).toBe(400);
    expect((await form(admin, '/ui/automations/not-a-uuid/enabled', { enabled: 'false' })).status).toBe(404);
    expect((await form(admin, `/ui/automations/${rule.id}/enabled`, { enabled: 'false' })).status).toBe(303);
    expect((await h.request('GET', '/api/automations')).body[0].enabled).toBe(false);
    expect((await form(admin, `/ui/automations/${rule.id}/delete`, {})).status).toBe(303);
    expect((await h.request('GET', '/api/automations')).body).toHaveLength(0);
  });

  it('edits and turns automations on and off through the JSON API; a button that is off does not run', async () => {
    const created = await h.request('POST', '/api/automations', {
      name: 'Press me',
      trigger: 'button',
      type: TYPE,
      action: { kind: 'app', url: 'http://127.0.0.1:9/', action: 'a', account: { key: 'k-secret' } },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const put = await h.request('PUT', `/api/automations/${id}`, {
      name: 'Press me again',
      trigger: 'button',
      type: TYPE,
      action: { kind: 'app', url: 'http://127.0.0.1:9/', action: 'b' },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      name: 'Press me again',
      action: { action: 'b', accountFields: ['key'] },
    });
    expect((await h.request('PATCH', `/api/automations/${id}`, { enabled: 'no' })).body).toEqual({
      message: 'enabled must be true or false',
      code: 'invalid-args',
    });
    expect((await h.request('PATCH', `/api/automations/${id}`, { enabled: false })).body.enabled).toBe(false);
    const book = await h.run('svc.entity/create', { type: TYPE, entity: { 'forms/name': 'One' } });
    const run = await h.request('POST', `/api/automations/${id}/run`, { entityIds: [book['svc/id']] });
    expect(run.status).toBe(400);
    expect(run.body.message).toBe('The button Press me again is turned off');
    expect((await h.request('PUT', `/api/automations/${crypto.randomUUID()}`, put.body)).status).toBe(404);
  });
});
