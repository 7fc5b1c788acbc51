// End to end over real HTTP with an app whose upstream changes between syncs: delta syncs with
// removals, a tryLater page retried, an app webhook event applied, a failing sync that keeps the
// previous data, a schema that grows, and accounts sealed at rest.
import {
  auth,
  createServer,
  defineApp,
  field,
  InvalidAccountError,
  input,
  remove,
  resume,
  silentLogger,
  TryLaterError,
  UpstreamError,
} from '@weft/core';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from './secret-box.js';
import { type HostedWorkspace, startHostedWorkspace } from './start-hosted-workspace.js';

const SECRET = 'tracker-secret-token-0042';

interface Task {
  id: string;
  title: string;
  status: string;
  estimate: number | string;
  done: string;
  updatedAt: number;
}

// The third-party system the app reads from; the test changes it between syncs.
const upstream = {
  tasks: new Map<string, Task>(),
  deleted: new Map<string, number>(),
  busy: 0,
  broken: false,
  extraField: false,
  hooks: new Map<string, { types: readonly string[] }>(),
  nextHook: 1,
  put(t: Omit<Task, 'updatedAt'>) {
    this.tasks.set(t.id, { ...t, updatedAt: Date.now() });
    this.deleted.delete(t.id);
  },
  drop(id: string) {
    this.tasks.delete(id);
    this.deleted.set(id, Date.now());
  },
};

function trackerApp() {
  const fields = {
    id: field.id(),
    name: field.title({ name: 'Title' }),
    status: field.workflow({
      options: [
        { name: 'todo', default: true, icon: '📝' },
        { name: 'doing' },
        { name: 'done', final: true, color: '#2e7d32' },
      ],
    }),
    estimate: field.number({ name: 'Estimate' }),
    done: field.bool({ name: 'Done' }),
    note: field.text({ name: 'Note' }),
  };
  // The later version of the app adds `note` to its schema.
  if (!upstream.extraField) delete (fields as Partial<typeof fields>).note;
  return defineApp({
    id: 'tracker',
    name: 'Tracker',
    version: '1.0.0',
    description: 'A task tracker for tests',
    website: 'http://127.0.0.1/',
    authentication: [
      auth.fields({
        id: 'token',
        name: 'Token',
        fields: { token: input.password({ name: 'Token' }) },
        validate: (account) => {
          if (account.token !== SECRET) throw new InvalidAccountError('The token is not valid');
          return { name: 'Tracker team' };
        },
      }),
    ],
    pageSize: 4,
    sync: {
      types: {
        task: {
          name: 'Tasks',
          delta: { safetyMarginHours: 0 },
          fields,
          async *data({ cursor, mode, since }) {
            if (upstream.broken) throw new UpstreamError('The tracker is down');
            if (upstream.busy > 0) {
              upstream.busy--;
              throw new TryLaterError('Slow down', { status: 429 });
            }
            const c = cursor as { offset?: number } | undefined;
            const sinceMs = mode === 'delta' && since ? since.getTime() : 0;
            const tasks = [...upstream.tasks.values()].filter((t) => t.updatedAt >= sinceMs);
            for (let i = c?.offset ?? 0; i < tasks.length; i++) {
              const t = tasks[i] as Task;
              yield {
                id: t.id,
                name: t.title,
                status: t.status,
                estimate: t.estimate as number,
                done: t.done as unknown as boolean,
                ...(upstream.extraField ? { note: `note of ${t.id}` } : {}),
              };
              yield resume({ offset: i + 1 });
            }
            if (mode === 'delta') {
              for (const [id, at] of upstream.deleted) if (at >= sinceMs) yield remove(id);
            }
          },
        },
      },
      webhooks: {
        async install({ types, webhook }) {
          if (webhook) upstream.hooks.delete(String(webhook.id));
          const id = `hook-${upstream.nextHook++}`;
          upstream.hooks.set(id, { types });
          return { id, events: ['task.changed'] };
        },
        async uninstall({ webhook }) {
          upstream.hooks.delete(String(webhook.id));
        },
        async verify({ payload }) {
          const event = payload as { hookId?: string };
          if (!event.hookId || !upstream.hooks.has(event.hookId))
            throw new InvalidAccountError('Unknown hook');
          return event.hookId;
        },
        async transform({ payload }) {
          const event = payload as { kind: string; task: { id: string; title?: string } };
          return {
            task: [
              event.kind === 'deleted'
                ? remove(event.task.id)
                : { id: event.task.id, name: event.task.title ?? '', status: 'doing' },
            ],
          };
        },
      },
    },
  });
}

// The app behind one address; a test swaps in a new version of it (a grown schema).
let current = createServer(trackerApp(), { logger: silentLogger });
let appServer: Server;
let appUrl: string;
let ws: HostedWorkspace;
const TOKEN = 'tracker-test-admin-token';

async function api(method: string, path: string, body?: unknown) {
  const response = await fetch(ws.url + path, {
    method,
    headers: { authorization: `Token ${TOKEN}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, text };
}

async function tasks(): Promise<Record<string, any>[]> {
  const { body } = await api('POST', '/api/commands', [
    {
      command: 'svc.entity/query',
      args: {
        query: {
          'q/from': 'tracker/task',
          'q/select': [
            'tracker/id',
            'tracker/name',
            'tracker/estimate',
            'tracker/done',
            { 'tracker/status': ['enum/name', 'enum/color', 'enum/icon'] },
          ],
          'q/order-by': [[['tracker/id'], 'q/asc']],
          'q/limit': 'q/no-limit',
        },
      },
    },
  ]);
  expect(body[0].success).toBe(true);
  return body[0].result;
}

const sync = async (id: string) => (await api('POST', `/api/host/sources/${id}/syncs?wait=true`)).body;

/** An event's run, once the queue's worker has applied it. */
async function eventRun(runId: string) {
  await ws.apps.waitFor(runId);
  return (await api('GET', `/api/host/runs/${runId}`)).body;
}

beforeAll(async () => {
  for (let i = 1; i <= 10; i++)
    upstream.put({
      id: `T${String(i).padStart(2, '0')}`,
      title: `Task ${i}`,
      status: 'todo',
      estimate: '1.5',
      done: i % 2 ? 'yes' : 'no',
    });
  appServer = await new Promise<Server>((resolve) => {
    const s = createHttpServer((req, res) => current(req, res)).listen(0, '127.0.0.1', () => resolve(s));
  });
  appUrl = `http://127.0.0.1:${(appServer.address() as AddressInfo).port}`;
  ws = await startHostedWorkspace({
    adminToken: TOKEN,
    rateLimit: 0,
    webhooks: false,
    box: new SecretBox('tracker-test-key'),
    hostOptions: { scheduleEveryMs: 0, retry: { baseDelayMs: 5, attempts: 4 } },
    log: () => {},
  });
});
afterAll(async () => {
  await ws?.close();
  await new Promise<void>((resolve) => {
    appServer.close(() => resolve());
    appServer.closeAllConnections();
  });
});

describe('a source that changes between syncs', () => {
  let id: string;

  it('refuses a wrong account with the app message, without echoing it', async () => {
    const { status, text } = await api('POST', '/api/host/sources', {
      url: appUrl,
      fields: { token: 'wrong-token-777' },
    });
    expect(status).toBe(400);
    expect(text).toMatch(/not valid/);
    expect(text).not.toContain('wrong-token-777');
  });

  it('stores the account sealed, and installs the app webhook', async () => {
    const { status, body } = await api('POST', '/api/host/sources', {
      url: appUrl,
      fields: { token: SECRET },
    });
    expect(status).toBe(201);
    expect(JSON.stringify(body)).not.toContain(SECRET);
    expect(body).toMatchObject({
      accountName: 'Tracker team',
      webhooksEnabled: true,
      webhook: { id: 'hook-1' },
    });
    id = body.id;
    const { rows } = await ws.driver.query<Record<string, unknown>>(`SELECT * FROM weft_host_sources`);
    expect(JSON.stringify(rows)).not.toContain(SECRET);
    expect(upstream.hooks.has('hook-1')).toBe(true);
  });

  it('runs a full sync, converting values per type (workflow as enum, decimals, booleans from text)', async () => {
    const run = await sync(id);
    expect(run).toMatchObject({ status: 'succeeded', mode: 'full', rowsSet: 10, pages: 3 });
    const rows = await tasks();
    expect(rows).toHaveLength(10);
    expect(rows[0]).toMatchObject({
      'tracker/id': 'T01',
      'tracker/name': 'Task 1',
      'tracker/estimate': '1.5',
      'tracker/done': true,
      'tracker/status': { 'enum/name': 'todo', 'enum/color': null, 'enum/icon': '📝' },
    });
    expect(rows[1]?.['tracker/done']).toBe(false);
    // An option's colour and icon, as the app's schema gives them.
    const { body } = await api('POST', '/api/commands', [
      {
        command: 'svc.entity/query',
        args: {
          query: {
            'q/from': 'tracker/status_tracker/task',
            'q/select': ['enum/name', 'enum/color', 'enum/icon'],
            'q/order-by': [[['svc/rank'], 'q/asc']],
          },
        },
      },
    ]);
    expect(body[0].result).toEqual([
      { 'enum/name': 'todo', 'enum/color': null, 'enum/icon': '📝' },
      { 'enum/name': 'doing', 'enum/color': null, 'enum/icon': null },
      { 'enum/name': 'done', 'enum/color': '#2e7d32', 'enum/icon': null },
    ]);
    // The field is marked as the service marks a select: a component of its type.
    const { body: schema } = await api('POST', '/api/commands', [{ command: 'svc.schema/query' }]);
    const task = schema[0].result['svc/types'].find((t: any) => t['svc/name'] === 'tracker/task');
    const status = task['svc/fields'].find((f: any) => f['svc/name'] === 'tracker/status');
    expect(status['svc/meta']).toMatchObject({ 'svc/type-component?': true });
  });

  it('runs a delta sync since the last success: changes set, removals deleted', async () => {
    await new Promise((r) => setTimeout(r, 20));
    upstream.put({ id: 'T03', title: 'Task 3 renamed', status: 'done', estimate: 2, done: 'checked' });
    upstream.put({ id: 'T11', title: 'Task 11', status: 'doing', estimate: 3, done: 'no' });
    upstream.drop('T05');
    upstream.drop('T06');
    const run = await sync(id);
    expect(run).toMatchObject({ status: 'succeeded', mode: 'delta', rowsSet: 2, rowsRemoved: 2 });
    expect(run.lastSynchronizedAt).not.toBeNull();
    const rows = await tasks();
    expect(rows.map((r) => r['tracker/id'])).toEqual([
      'T01',
      'T02',
      'T03',
      'T04',
      'T07',
      'T08',
      'T09',
      'T10',
      'T11',
    ]);
    expect(rows.find((r) => r['tracker/id'] === 'T03')).toMatchObject({
      'tracker/name': 'Task 3 renamed',
      'tracker/status': { 'enum/name': 'done' },
    });
  });

  it('retries a tryLater page and completes the run', async () => {
    upstream.busy = 2;
    upstream.put({ id: 'T12', title: 'Task 12', status: 'todo', estimate: 1, done: 'no' });
    const run = await sync(id);
    expect(run).toMatchObject({ status: 'succeeded', retries: 2, rowsSet: 1 });
    // Each try of the page was a job of its own, the retries sent with a delay.
    const { rows: jobs } = await ws.driver.query<{ page: number; delayed: boolean }>(
      `SELECT (data->>'page')::int AS page, start_after > created_on AS delayed FROM pgboss.job
        WHERE name = 'weft-sync-page' AND data->>'runId' = $1 ORDER BY created_on`,
      [run.id],
    );
    expect(jobs.map((j) => [j.page, j.delayed])).toEqual([
      [1, false],
      [1, true],
      [1, true],
    ]);
    expect((await tasks()).map((r) => r['tracker/id'])).toContain('T12');
  });

  it('applies an app webhook event as delta rows', async () => {
    const url = ws.apps.webhookUrl(id);
    const set = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        hookId: 'hook-1',
        kind: 'changed',
        task: { id: 'T13', title: 'From a webhook' },
      }),
    });
    expect(set.status).toBe(200);
    // The sender is answered once the event is checked and queued; a worker applies it.
    const queued = (await set.json()) as { ok: boolean; runId: string };
    expect(queued.ok).toBe(true);
    expect(await eventRun(queued.runId)).toMatchObject({ kind: 'webhook', status: 'succeeded', rowsSet: 1 });
    const removed = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ hookId: 'hook-1', kind: 'deleted', task: { id: 'T01' } }),
    });
    const removedRun = await eventRun(((await removed.json()) as { runId: string }).runId);
    expect(removedRun).toMatchObject({ status: 'succeeded', mode: 'delta', rowsRemoved: 1 });
    const forged = await fetch(url, {
      method: 'POST',
      body: JSON.stringify({ hookId: 'hook-999', kind: 'deleted', task: { id: 'T02' } }),
    });
    expect(forged.status).toBe(400);
    const rows = await tasks();
    expect(rows.find((r) => r['tracker/id'] === 'T13')).toMatchObject({
      'tracker/name': 'From a webhook',
      'tracker/status': { 'enum/name': 'doing' },
    });
    expect(rows.map((r) => r['tracker/id'])).not.toContain('T01');
    expect(rows.map((r) => r['tracker/id'])).toContain('T02');
    const runs = await api('GET', `/api/host/sources/${id}/runs`);
    expect(runs.body.filter((r: { kind: string }) => r.kind === 'webhook')).toHaveLength(2);
  });

  it('fails a run when the app fails, keeping the previous data and saying why', async () => {
    const before = await tasks();
    upstream.broken = true;
    upstream.drop('T02');
    const run = await sync(id);
    upstream.broken = false;
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(/The tracker is down/);
    expect(run.error).not.toContain(SECRET);
    expect(await tasks()).toEqual(before);
  });

  it('adds the fields of a grown schema on the next sync, dropping nothing', async () => {
    upstream.extraField = true;
    current = createServer(trackerApp(), { logger: silentLogger });
    // A delta sends only changed rows: the new field fills in as rows change.
    upstream.put({ id: 'T12', title: 'Task 12', status: 'todo', estimate: 1, done: 'no' });
    const run = await sync(id);
    expect(run.status).toBe('succeeded');
    const { body } = await api('POST', '/api/commands', [
      {
        command: 'svc.entity/query',
        args: {
          query: {
            'q/from': 'tracker/task',
            'q/select': ['tracker/id', 'tracker/note'],
            'q/where': ['=', ['tracker/id'], '$id'],
          },
          params: { $id: 'T12' },
        },
      },
    ]);
    expect(body[0].result[0]['tracker/note']).toBe('note of T12');
  });

  it('reinstalls the webhook when the types change and deletes it with the source', async () => {
    const same = await api('PATCH', `/api/host/sources/${id}`, { types: ['task'], filter: {} });
    expect(same.body.webhook.id).toBe('hook-1');
    const again = await api('POST', `/api/host/sources/${id}/webhook`);
    expect(again.body.webhook.id).toBe('hook-2');
    expect([...upstream.hooks.keys()]).toEqual(['hook-2']);
    expect((await api('DELETE', `/api/host/sources/${id}`)).status).toBe(204);
    expect(upstream.hooks.size).toBe(0);
    expect((await api('GET', `/api/host/sources/${id}`)).status).toBe(404);
  });
});
