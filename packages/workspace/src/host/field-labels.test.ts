// Field labels from the app's schema: the host stores each field's name as `ui/label`, and
// automations use it: template names, script entity keys (with the old names as hidden aliases),
// while names without the app prefix keep working for rules written before.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer, silentLogger } from '@weft/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fillTemplate, loadEntities, scriptEntity } from '../automations/entity-shapes.js';
import { runScript } from '../automations/script-runner.js';
import { loadCatalog } from '../schema/catalog.js';
import { tasksApp } from './fixtures/tasks-app.js';
import { SecretBox } from './secret-box.js';
import { type HostedWorkspace, startHostedWorkspace } from './start-hosted-workspace.js';

let ws: HostedWorkspace;
let appServer: Server;
let sourceId = '';

const app = tasksApp({ id: 'tasks', name: 'Tasks' });

beforeAll(async () => {
  ws = await startHostedWorkspace({
    adminToken: 'labels-admin-token',
    rateLimit: 0,
    webhooks: false,
    box: new SecretBox('labels-key'),
    hostOptions: { scheduleEveryMs: 0 },
    log: () => {},
  });
  appServer = await new Promise<Server>((resolve) => {
    const s = createServer(app, { logger: silentLogger }).listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(appServer.address() as AddressInfo).port}`;
  sourceId = (await ws.apps.addSource({ url })).id;
  expect((await ws.apps.sync(sourceId, { wait: true })).status).toBe('succeeded');
});

afterAll(async () => {
  await ws?.close();
  if (appServer) {
    appServer.closeAllConnections();
    await new Promise((r) => appServer.close(r));
  }
});

const schemaToken = async () =>
  (await ws.driver.query<{ value: string }>(`SELECT value FROM svc_meta WHERE key = 'schema_token'`)).rows[0]
    ?.value;

describe('field labels', () => {
  it("are stored from the app's schema, once", async () => {
    const catalog = await loadCatalog(ws.driver);
    const label = (type: string, name: string) => catalog.field(catalog.type(type), name).meta['ui/label'];
    expect(label('tasks/task', 'tasks/name')).toBe('Summary');
    expect(label('tasks/task', 'tasks/estimate')).toBe('Estimate Hours');
    expect(label('tasks/task', 'tasks/owner')).toBeTypeOf('string');
    expect(label('tasks/person', 'tasks/name')).toBe('Full Name');
    expect(label('tasks/person', 'tasks/email')).toBe('E-mail');
    expect(label('tasks/person', 'tasks/owned-tasks')).toBe('Owned Tasks');
    // A sync with the same schema writes no label again.
    const before = await schemaToken();
    expect((await ws.apps.sync(sourceId, { wait: true })).status).toBe('succeeded');
    expect(await schemaToken()).toBe(before);
  });

  it('name template fields and script keys, the old names still working', async () => {
    const [found] = await ws.execute([
      { command: 'svc.entity/query', args: { query: { 'q/from': 'tasks/task', 'q/select': ['svc/id'] } } },
    ]);
    const id = (found as { result: { 'svc/id': string }[] }).result[0]!['svc/id'];
    const { catalog, type, rows } = await loadEntities(ws.driver, ws.admin, 'tasks/task', [id]);
    const row = rows[0]!;
    expect(
      fillTemplate(
        '{{Summary}} ({{estimate hours}} h) for {{Owner.Full Name}} <{{owner.email}}> | old: {{name}}, {{estimate}}, {{Owner.E-mail}} | {{Nope}}',
        catalog,
        type,
        row,
      ),
    ).toBe(
      'Write the notes (3 h) for Ada Lovelace <ada@example.org> | old: Write the notes, 3, ada@example.org | {{Nope}}',
    );

    const entity = scriptEntity(catalog, type, row);
    expect(entity).toMatchObject({
      Summary: 'Write the notes',
      'Estimate Hours': 3,
      Id: id,
      type: 'tasks/task',
    });
    expect(entity).not.toHaveProperty('name');
    const outcome = await runScript(
      `const e = args.currentEntities[0];
       return { keys: Object.keys(e).sort(), name: e.name, estimate: e.estimate, json: JSON.stringify(e).includes('weft') };`,
      { currentEntities: [entity] },
      { svc: {}, http: {} },
      5000,
    );
    expect(outcome.ok).toBe(true);
    const result = (outcome as { result: { keys: string[]; name: string; estimate: number; json: boolean } })
      .result;
    expect(result).toMatchObject({ name: 'Write the notes', estimate: 3, json: false });
    expect(result.keys).toContain('Summary');
    expect(result.keys).toContain('Estimate Hours');
    expect(result.keys).not.toContain('name');
    expect(result.keys).not.toContain('__weftAliases');
  });
});
