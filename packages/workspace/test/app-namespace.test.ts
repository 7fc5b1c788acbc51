// An app's types live in a namespace no other type uses: an app named like an admin's types, or
// like the workspace's own namespace, gets another one, recorded with its source, and its syncs
// never write into (or delete from) types it did not make.
import { auth, defineApp, field } from '@weft/core';
import { type TestApp, testApp } from '@weft/core/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHostedOn } from '../src/host/fixtures/hosted-on.js';
import type { HostedWorkspace } from '../src/host/start-hosted-workspace.js';
import { describeEachDatabase, typeArgs } from './support/databases.js';

const appNamed = (name: string) =>
  defineApp({
    id: name.toLowerCase(),
    name,
    version: '1.0.0',
    description: `an app named ${name}`,
    website: 'http://127.0.0.1/',
    authentication: [auth.none({ name: 'None' })],
    sync: {
      types: {
        person: {
          name: 'Persons',
          fields: {
            id: field.id(),
            name: field.title({ name: 'Name' }),
            email: field.email({ name: 'Email' }),
          },
          async *data() {
            yield { id: 'p1', name: 'From the app', email: 'p1@app.test' };
          },
        },
        user: {
          name: 'Users',
          fields: { id: field.id(), name: field.title({ name: 'Name' }), nick: field.text({ name: 'Nick' }) },
          async *data() {
            yield { id: 'u1', name: 'App user', nick: 'nick' };
          },
        },
      },
    },
  });

describeEachDatabase('app namespaces', (target) => {
  let ws: HostedWorkspace;
  let close: () => Promise<void> = async () => {};
  const served: TestApp[] = [];

  beforeAll(async () => {
    ({ ws, close } = await startHostedOn(target, 'namespace'));
    for (const name of ['Sec', 'svc']) served.push(await testApp(appNamed(name)));
  });
  afterAll(async () => {
    for (const s of served) await s.close();
    await close();
  });

  const run = async (command: string, args: Record<string, unknown>) => {
    const [r] = await ws.execute([{ command, args }]);
    if (!r?.success) throw new Error(`${command}: ${JSON.stringify(r)}`);
    return r.result as any;
  };
  const fieldsOf = async (type: string): Promise<string[]> => {
    const schema = await run('svc.schema/query', {});
    const t = schema['svc/types'].find((x: any) => x['svc/name'] === type);
    return t ? t['svc/fields'].map((f: any) => f['svc/name']).sort() : [];
  };
  const names = async (type: string, title: string) =>
    (
      await run('svc.entity/query', {
        query: { 'q/from': type, 'q/select': [title], 'q/limit': 'q/no-limit' },
      })
    )
      .map((r: Record<string, string>) => r[title])
      .sort();

  it("an app named like an admin's types gets another namespace, and leaves those types alone", async () => {
    await run('schema.type/create', typeArgs('sec/person', [['sec/salary', 'svc/int']]));
    for (const name of ['Alice', 'Bob'])
      await run('svc.entity/create', { type: 'sec/person', entity: { 'sec/name': name, 'sec/salary': 1 } });
    const before = await fieldsOf('sec/person');

    const source = await ws.apps.addSource({ url: served[0]!.url, types: ['person'] });
    expect(source.namespace).toBe('sec-2');
    expect(await ws.apps.sync(source.id, { wait: true })).toMatchObject({ status: 'succeeded' });
    expect(await names('sec/person', 'sec/name')).toEqual(['Alice', 'Bob']);
    expect(await fieldsOf('sec/person')).toEqual(before);
    expect(await names('sec-2/person', 'sec-2/name')).toEqual(['From the app']);

    // A later sync reuses the recorded namespace.
    expect(await ws.apps.sync(source.id, { wait: true })).toMatchObject({ status: 'succeeded' });
    expect(await names('sec/person', 'sec/name')).toEqual(['Alice', 'Bob']);
    expect(await names('sec-2/person', 'sec-2/name')).toEqual(['From the app']);
    // A second source of the same app takes the next free one.
    expect((await ws.apps.addSource({ url: served[0]!.url, types: ['person'] })).namespace).toBe('sec-3');
  }, 60_000);

  it("an app named like the workspace's own namespace never touches its built-in types", async () => {
    const before = await fieldsOf('svc/user');
    const users = await names('svc/user', 'user/name');
    const source = await ws.apps.addSource({ url: served[1]!.url, types: ['person', 'user'] });
    expect(source.namespace).not.toBe('svc');
    expect(await ws.apps.sync(source.id, { wait: true })).toMatchObject({ status: 'succeeded' });
    expect(await fieldsOf('svc/user')).toEqual(before);
    expect(await names('svc/user', 'user/name')).toEqual(users);
    expect(await names(`${source.namespace}/user`, `${source.namespace}/name`)).toEqual(['App user']);
  }, 60_000);
});
