// `save-entity` against a real local workspace: the action writes through @weft/client, the
// service's own messages come back as 400s, and the workspace token never shows.
import { createWorkspaceClient } from '@weft/client';
import { type TestApp, testApp } from '@weft/core/testing';
import { type RunningWorkspace, startWorkspace } from '@weft/workspace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDispatchApp } from '../src/app.js';
import { configFromEnv } from '../src/config.js';
import { parseFieldLines } from '../src/save-entity.js';

const token = 'dispatch-save-entity-admin-token';
let ws: RunningWorkspace;
let app: TestApp;
let unconfigured: TestApp;

beforeAll(async () => {
  ws = await startWorkspace({ rateLimit: 0, adminToken: token, webhooks: false, log: () => {} });
  await createWorkspaceClient({ url: ws.url, token }).schema.createType({
    name: 'Tracker/Task',
    titleField: 'Tracker/name',
    fields: [
      { name: 'Tracker/Estimate', type: 'svc/int' },
      { name: 'Tracker/Done', type: 'svc/bool' },
    ],
  });
  app = await testApp(createDispatchApp({ workspace: { url: ws.url, token } }));
  unconfigured = await testApp(createDispatchApp());
}, 60_000);
afterAll(async () => {
  await app?.close();
  await unconfigured?.close();
  await ws?.close();
});

async function tasks() {
  const client = createWorkspaceClient({ url: ws.url, token });
  return (await client.rawQuery({
    'q/from': 'Tracker/Task',
    'q/select': ['svc/id', 'Tracker/name', 'Tracker/Estimate', 'Tracker/Done'],
  })) as Array<Record<string, unknown>>;
}

describe('dispatch: save-entity writes into the workspace through the client', () => {
  it('creates an entity, then updates it by id', async () => {
    const created = await app.execute('save-entity', {
      type: 'Tracker/Task',
      fields: 'Tracker/name: Call the customer back\nTracker/Estimate: =3\nTracker/Done: =false',
    });
    expect(created.status).toBe(200);
    const [task] = await tasks();
    expect(task).toMatchObject({
      'Tracker/name': 'Call the customer back',
      'Tracker/Estimate': 3,
      'Tracker/Done': false,
    });

    const updated = await app.execute('save-entity', {
      type: 'Tracker/Task',
      id: String(task!['svc/id']),
      fields: 'Tracker/Done: =true',
    });
    expect(updated.status).toBe(200);
    expect((await tasks()).find((t) => t['svc/id'] === task!['svc/id'])).toMatchObject({
      'Tracker/Done': true,
    });
  });

  it("answers the service's message as a 400 for a change the workspace refuses, without the token", async () => {
    const unknown = await app.execute('save-entity', { type: 'Tracker/Nothing', fields: 'Tracker/name: x' });
    expect(unknown.status).toBe(400);
    expect(typeof unknown.body.message).toBe('string');
    expect(JSON.stringify(unknown.body)).not.toContain(token);
    const wrongId = await app.execute('save-entity', {
      type: 'Tracker/Task',
      id: '00000000-0000-4000-8000-000000000000',
      fields: 'Tracker/name: y',
    });
    expect(wrongId.status).toBe(400);
  });

  it('checks its arguments before writing, and says when the deployment has no workspace', async () => {
    const bad = await app.execute('save-entity', { type: 'Tracker/Task', fields: 'no colon here' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/is not "<app>\/<field>: value"/);
    const none = await unconfigured.execute('save-entity', {
      type: 'Tracker/Task',
      fields: 'Tracker/name: z',
    });
    expect(none.status).toBe(400);
    expect(none.body.message).toMatch(/set WORKSPACE_URL and WORKSPACE_TOKEN/);
  });
});

describe('dispatch: field lines and configuration', () => {
  it('reads text and "=" JSON values, and refuses bad lines by number', () => {
    expect(parseFieldLines('A/b: hello: world\nA/c: =12\n\nA/d: ={"svc/id":"x"}')).toEqual({
      'A/b': 'hello: world',
      'A/c': 12,
      'A/d': { 'svc/id': 'x' },
    });
    expect(() => parseFieldLines('A/b: =nope')).toThrow(/line 1: the value after "=" is not JSON/);
    expect(() => parseFieldLines('')).toThrow(/names no field/);
  });

  it('takes WORKSPACE_URL and WORKSPACE_TOKEN together, never one alone', () => {
    expect(configFromEnv({ WORKSPACE_URL: 'http://ws.example', WORKSPACE_TOKEN: 't' }).workspace).toEqual({
      url: 'http://ws.example',
      token: 't',
    });
    expect(() => configFromEnv({ WORKSPACE_URL: 'http://ws.example' })).toThrow(/go together/);
    expect(configFromEnv({}).workspace).toBeUndefined();
  });
});

describe('dispatch: save-entity into a workspace that speaks fibery (WORKSPACE_NAMESPACE)', () => {
  let fibery: RunningWorkspace;
  let fiberyApp: TestApp;

  beforeAll(async () => {
    fibery = await startWorkspace({
      rateLimit: 0,
      adminToken: token,
      webhooks: false,
      log: () => {},
      namespace: 'fibery',
    });
    await createWorkspaceClient({ url: fibery.url, token, namespace: 'fibery' }).schema.createType({
      name: 'Tracker/Task',
      titleField: 'Tracker/name',
    });
    const config = configFromEnv({
      WORKSPACE_URL: fibery.url,
      WORKSPACE_TOKEN: token,
      WORKSPACE_NAMESPACE: 'fibery',
    });
    fiberyApp = await testApp(createDispatchApp({ workspace: config.workspace! }));
  }, 60_000);
  afterAll(async () => {
    await fiberyApp?.close();
    await fibery?.close();
  });

  it('creates the entity through the fibery names, and refuses a namespace it does not know', async () => {
    const created = await fiberyApp.execute('save-entity', {
      type: 'Tracker/Task',
      fields: 'Tracker/name: Ship it',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const res = await fetch(`${fibery.url}/api/commands`, {
      method: 'POST',
      headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify([
        {
          command: 'fibery.entity/query',
          args: {
            query: { 'q/from': 'Tracker/Task', 'q/select': ['fibery/id', 'Tracker/name'], 'q/limit': 5 },
          },
        },
      ]),
    });
    const [answer] = (await res.json()) as { result: Record<string, unknown>[] }[];
    expect(answer!.result).toEqual([{ 'fibery/id': expect.any(String), 'Tracker/name': 'Ship it' }]);
    expect(() =>
      configFromEnv({ WORKSPACE_URL: fibery.url, WORKSPACE_TOKEN: token, WORKSPACE_NAMESPACE: 'acme' }),
    ).toThrow(/WORKSPACE_NAMESPACE/);
  });
});
