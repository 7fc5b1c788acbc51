import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DatabaseOption } from '../src/db/open-driver.js';
import { openWorkspace } from '../src/workspace.js';
import { describeEachDatabase, typeArgs, useWorkspace } from './support/databases.js';
import { hookReceiver } from './support/hook-receiver.js';

describeEachDatabase('webhooks v2', (target) => {
  const h = useWorkspace(target);
  const rx = hookReceiver();
  /** An entity's modification date as the API prints it now. */
  const modified = async (id: string): Promise<string> => {
    const [row] = await h.run('svc.entity/query', {
      query: {
        'q/from': 'w/task',
        'q/select': ['svc/modification-date'],
        'q/where': ['=', ['svc/id'], '$id'],
      },
      params: { $id: id },
    });
    return row['svc/modification-date'];
  };

  beforeAll(async () => {
    await rx.start();
    await h.run(
      'schema.type/create',
      typeArgs('w/task', [
        ['w/n', 'svc/int'],
        ['w/subs', 'w/task', { 'svc/collection?': true }],
      ]),
    );
    await h.run('schema.type/create', typeArgs('w/other'));
  });
  afterAll(() => rx.stop());

  it('create, list and delete webhooks', async () => {
    const created = await h.request('POST', '/api/webhooks/v2', {
      url: 'http://127.0.0.1:9/x',
      type: 'w/other',
    });
    expect(created.body).toEqual({
      id: expect.any(Number),
      url: 'http://127.0.0.1:9/x',
      type: 'w/other',
      state: 'active',
      version: '2',
      runs: [],
    });
    expect((await h.request('GET', '/api/webhooks/v2')).body.map((w: any) => w.id)).toContain(
      created.body.id,
    );
    expect((await h.request('DELETE', `/api/webhooks/v2/${created.body.id}`)).status).toBe(200);
    expect((await h.request('GET', '/api/webhooks/v2')).body.map((w: any) => w.id)).not.toContain(
      created.body.id,
    );
    expect((await h.request('DELETE', `/api/webhooks/v2/${created.body.id}`)).status).toBe(404);
    expect((await h.request('POST', '/api/webhooks/v2', { url: 'nope', type: 'w/task' })).status).toBe(400);
    expect(
      (await h.request('POST', '/api/webhooks/v2', { url: 'http://x.test/', type: 'w/none' })).status,
    ).toBe(400);
  });

  it('one delivery per command that changed the subscribed type, with its effects; retried after a failure', async () => {
    const hook = (await h.request('POST', '/api/webhooks/v2', { url: rx.url, type: 'w/task' })).body;
    const a = await h.run('svc.entity/create', { type: 'w/task', entity: { 'w/n': 1 } });
    const b = await h.run('svc.entity/create', { type: 'w/task', entity: { 'w/n': 2 } });
    await rx.until(2);
    rx.bodies.length = 0;
    rx.statuses.push(500); // the first attempt of the next delivery fails
    const correlationId = randomUUID();
    await h.commands([
      {
        command: 'svc.command/batch',
        correlationId,
        args: {
          commands: [
            {
              command: 'svc.entity/update',
              args: { type: 'w/task', entity: { 'svc/id': a['svc/id'], 'w/n': 10 } },
            },
            {
              command: 'svc.entity/add-collection-items',
              args: {
                type: 'w/task',
                field: 'w/subs',
                entity: { 'svc/id': a['svc/id'] },
                items: [{ 'svc/id': b['svc/id'] }],
              },
            },
            { command: 'svc.entity/create', args: { type: 'w/other', entity: {} } },
          ],
        },
      },
      { command: 'svc.entity/create', args: { type: 'w/other', entity: {} } },
    ]);
    const [delivery] = await rx.until(1);
    expect(delivery.method).toBe('POST');
    expect(delivery.type).toMatch(/application\/json/);
    expect(delivery.body).toEqual({
      sequenceId: expect.any(Number),
      authorId: h.ws.adminUserId,
      creationDate: expect.stringMatching(/Z$/),
      command: { correlationId },
      effects: [
        {
          effect: 'svc.entity/update',
          id: a['svc/id'],
          type: 'w/task',
          // The modification date the update moved comes with the fields it changed, as the
          // service's own update effects carry it.
          values: { 'w/n': 10, 'svc/modification-date': await modified(a['svc/id']) },
          valuesBefore: { 'w/n': 1, 'svc/modification-date': a['svc/modification-date'] },
        },
        {
          effect: 'svc.entity/add-collection-items',
          id: a['svc/id'],
          type: 'w/task',
          field: 'w/subs',
          items: [{ 'svc/id': b['svc/id'] }],
        },
      ],
    });
    await h.ws.webhooks?.idle();
    await new Promise((r) => setTimeout(r, 300));
    expect(rx.bodies).toHaveLength(1); // nothing for w/other
    const [listed] = (await h.request('GET', '/api/webhooks/v2')).body.filter((w: any) => w.id === hook.id);
    expect(listed.runs.map((r: any) => r.http_status)).toEqual(['200', '500', '200', '200']);
    expect(listed.runs[0]).toEqual({
      http_status: '200',
      elapsed_time: expect.stringMatching(/^\d+$/),
      request_time: expect.any(String),
    });
    await h.request('DELETE', `/api/webhooks/v2/${hook.id}`);
  });

  it('an update tells of the fields it changed only; one that changed nothing is not delivered', async () => {
    rx.bodies.length = 0;
    const hook = (await h.request('POST', '/api/webhooks/v2', { url: rx.url, type: 'w/task' })).body;
    const x = await h.run('svc.entity/create', { type: 'w/task', entity: { 'w/name': 'x', 'w/n': 1 } });
    const y = await h.run('svc.entity/create', { type: 'w/task', entity: { 'w/name': 'y', 'w/n': 2 } });
    await rx.until(2);
    rx.bodies.length = 0;
    const update = (entity: Record<string, unknown>) => ({
      command: 'svc.entity/update',
      args: { type: 'w/task', entity },
    });
    // One update at a time, then a run of them (update-entities.ts has a path for each), with
    // values as they are (one entity named by its id in upper case).
    await h.commands([update({ 'svc/id': x['svc/id'], 'w/n': 1, 'w/name': 'x' })]);
    await h.commands([
      {
        command: 'svc.command/batch',
        args: {
          commands: [
            update({ 'svc/id': x['svc/id'], 'w/n': 1, 'w/name': 'x two' }),
            update({ 'svc/id': y['svc/id'].toUpperCase(), 'w/n': 2, 'w/name': 'y' }),
          ],
        },
      },
    ]);
    await h.commands([update({ 'svc/id': y['svc/id'], 'w/n': 3 })]);
    // A webhook's deliveries go out in the order of their changes: a delivery of the first
    // command would come before these two.
    const [first, second] = await rx.until(2);
    expect(first.body.effects).toEqual([
      {
        effect: 'svc.entity/update',
        id: x['svc/id'],
        type: 'w/task',
        values: { 'w/name': 'x two', 'svc/modification-date': await modified(x['svc/id']) },
        valuesBefore: { 'w/name': 'x', 'svc/modification-date': x['svc/modification-date'] },
      },
    ]);
    // y's no-op update in the run kept its date, which the next update's effect starts from.
    expect(second.body.effects).toEqual([
      {
        effect: 'svc.entity/update',
        id: y['svc/id'],
        type: 'w/task',
        values: { 'w/n': 3, 'svc/modification-date': await modified(y['svc/id']) },
        valuesBefore: { 'w/n': 2, 'svc/modification-date': y['svc/modification-date'] },
      },
    ]);
    expect(second.body.effects[0].values['svc/modification-date'] > y['svc/modification-date']).toBe(true);
    await h.ws.webhooks?.idle();
    expect(rx.bodies).toHaveLength(2);
    await h.request('DELETE', `/api/webhooks/v2/${hook.id}`);
  });

  it('the list returns the latest 50 runs', async () => {
    const hook = (
      await h.request('POST', '/api/webhooks/v2', { url: 'http://127.0.0.1:9/x', type: 'w/other' })
    ).body;
    await h.ws.driver.query(
      `INSERT INTO svc_webhook_runs (webhook_id, http_status, elapsed_time, request_time)
       SELECT $1, g::text, '1', now() FROM generate_series(1, 60) g`,
      [hook.id],
    );
    const [listed] = (await h.request('GET', '/api/webhooks/v2')).body.filter((w: any) => w.id === hook.id);
    expect(listed.runs).toHaveLength(50);
    expect(listed.runs[0].http_status).toBe('60');
    await h.request('DELETE', `/api/webhooks/v2/${hook.id}`);
  });
});

describeEachDatabase('webhook deliveries survive a stopped process', (target) => {
  const rx = hookReceiver();
  let database: DatabaseOption;
  let drop: () => Promise<void> = async () => {};
  let dir = '';
  beforeAll(async () => {
    await rx.start();
    if (target.name === 'pglite') {
      dir = mkdtempSync(join(tmpdir(), 'weft-ws-'));
      database = { kind: 'pglite', dataDir: dir };
    } else {
      const created = await target.create();
      database = created.database;
      drop = created.drop;
    }
  });
  afterAll(async () => {
    await rx.stop();
    await drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a change committed while no worker runs is delivered by the next process', async () => {
    const first = await openWorkspace({ database, webhooks: false, log: () => {} });
    await first.execute([{ command: 'schema.type/create', args: typeArgs('q/job') }]);
    await first.driver.query(`INSERT INTO svc_webhooks (url, type_name) VALUES ($1, 'q/job')`, [rx.url]);
    const [created] = await first.execute([
      { command: 'svc.entity/create', args: { type: 'q/job', entity: {} }, correlationId: 'c-1' },
    ]);
    expect(created?.success).toBe(true);
    await first.close();
    expect(rx.bodies).toHaveLength(0);
    const second = await openWorkspace({ database, webhooks: { pollMs: 100 }, log: () => {} });
    try {
      const [d] = await rx.until(1);
      expect(d.body.command).toEqual({ correlationId: 'c-1' });
      expect(d.body.effects[0]).toMatchObject({ effect: 'svc.entity/create', type: 'q/job' });
    } finally {
      await second.close();
    }
  });

  it("a webhook's waiting deliveries go out one at a time, in the order of their changes", async () => {
    // A receiver that takes its time over each delivery, noting how many it holds at once.
    const seen: string[] = [];
    let inFlight = 0;
    let most = 0;
    const slow = createServer((req, res) => {
      inFlight++;
      most = Math.max(most, inFlight);
      let data = '';
      req.on('data', (c) => {
        data += c;
      });
      req.on('end', () => {
        const body = JSON.parse(data) as { effects: Array<{ effect: string }> };
        seen.push(...body.effects.map((e) => e.effect));
        setTimeout(() => {
          inFlight--;
          res.writeHead(200).end();
        }, 150);
      });
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/hook`;
    try {
      // Three changes wait together: made while no worker ran, then drained at once.
      const first = await openWorkspace({ database, webhooks: false, log: () => {} });
      await first.execute([
        { command: 'schema.type/create', args: typeArgs('q/step', [['q/n', 'svc/int']]) },
      ]);
      await first.driver.query(`INSERT INTO svc_webhooks (url, type_name) VALUES ($1, 'q/step')`, [url]);
      const id = randomUUID();
      for (const command of [
        { command: 'svc.entity/create', args: { type: 'q/step', entity: { 'svc/id': id, 'q/n': 1 } } },
        { command: 'svc.entity/update', args: { type: 'q/step', entity: { 'svc/id': id, 'q/n': 2 } } },
        { command: 'svc.entity/delete', args: { type: 'q/step', entity: { 'svc/id': id } } },
      ]) {
        const [result] = await first.execute([command]);
        expect(result?.success).toBe(true);
      }
      await first.close();
      const second = await openWorkspace({ database, webhooks: { pollMs: 100 }, log: () => {} });
      try {
        const deadline = Date.now() + 20_000;
        while (seen.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      } finally {
        await second.close();
      }
      expect(seen).toEqual(['svc.entity/create', 'svc.entity/update', 'svc.entity/delete']);
      expect(most).toBe(1);
    } finally {
      await new Promise<void>((r) => slow.close(() => r()));
    }
  });
});
