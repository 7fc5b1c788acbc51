// Every method of the client against a real local workspace over HTTP (no rate limit here; the
// budget has its own tests), once per namespace: the workspace and the client set to the same one.
import { once } from 'node:events';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import express from 'express';
import { NAMESPACES } from '@weft/namespace';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  contains,
  count,
  createWorkspaceClient,
  end,
  eq,
  gte,
  isIn,
  lte,
  many,
  ne,
  not,
  notIn,
  or,
  start,
  startsWith,
  type Filter,
  mandatoryFields,
  type Schema,
  type WebhookDelivery,
  type WorkspaceClient,
  WorkspaceError,
} from '../src/index.js';
import { webhookReceiver } from '../src/webhooks/webhook-receiver.js';
import { requestCounter, useLocalWorkspace } from './support/workspace.js';

describe.each(NAMESPACES)('namespace %s', (namespace) => {
  const local = useLocalWorkspace({ namespace });
  let client: WorkspaceClient;
  let projectId: string;
  let states: { name: string; id: string }[];

  async function text(stream: Readable): Promise<string> {
    let out = '';
    for await (const chunk of stream) out += chunk;
    return out;
  }

  beforeAll(async () => {
    client = createWorkspaceClient({ namespace, url: local.url, token: local.token, rateLimit: false });
    await client.schema.createType({
      name: 'Tracker/Project',
      titleField: 'Tracker/Name',
      mixins: ['files', 'comments'],
    });
    await client.schema.createType({
      name: 'Tracker/Task',
      titleField: 'Tracker/Name',
      color: '#ff0000',
      fields: [
        { name: 'Tracker/Estimate', type: 'svc/int' },
        { name: 'Tracker/Due', type: 'svc/date-range' },
      ],
    });
    await client.schema.createRelation(
      { type: 'Tracker/Task', field: 'Tracker/Project' },
      { type: 'Tracker/Project', field: 'Tracker/Tasks', many: true },
    );
    ({ options: states } = await client.schema.createSingleSelect({
      holderType: 'Tracker/Task',
      name: 'Tracker/State',
      options: ['Open', 'Done'],
      default: 'Open',
      required: true,
    }));
    await client.schema.createRichTextField('Tracker/Task', 'Tracker/Notes');
    projectId = (await client.entities.create('Tracker/Project', { 'Tracker/Name': 'Weft' }))[
      'svc/id'
    ] as string;
  });

  describe('schema', () => {
    test('the multi-step flows produced the types, the relation, the single-select and the rich text', async () => {
      const schema = await client.schema.query();
      const task = schema['svc/types'].find((t) => t['svc/name'] === 'Tracker/Task')!;
      const field = (name: string) => task['svc/fields'].find((f) => f['svc/name'] === name);
      expect(task['svc/fields'].map((f) => f['svc/name'])).toEqual(
        expect.arrayContaining([
          'svc/id',
          'svc/public-id',
          'svc/creation-date',
          'svc/modification-date',
          'Tracker/Name',
        ]),
      );
      expect(field('Tracker/Project')?.['svc/type']).toBe('Tracker/Project');
      expect(field('Tracker/State')?.['svc/type']).toBe('Tracker/State_Tracker/Task');
      expect(field('Tracker/State')?.['svc/meta']).toMatchObject({ 'svc/required?': true });
      expect(field('Tracker/Notes')?.['svc/type']).toBe('Collaboration~Documents/Document');
      const project = schema['svc/types'].find((t) => t['svc/name'] === 'Tracker/Project')!;
      const tasks = project['svc/fields'].find((f) => f['svc/name'] === 'Tracker/Tasks');
      expect(tasks?.['svc/meta']).toMatchObject({ 'svc/collection?': true });
      expect(tasks?.['svc/meta']?.['svc/relation']).toBe(
        field('Tracker/Project')?.['svc/meta']?.['svc/relation'],
      );
      expect(project['svc/fields'].map((f) => f['svc/name'])).toEqual(
        expect.arrayContaining(['Files/Files', 'comments/comments']),
      );
    });

    test('raw commands: one coalesced command, several in one request, a schema batch, descriptions', async () => {
      await client.schema.batch([
        { command: 'schema.enum/create', args: { 'svc/name': 'Raw/Kind_Raw/Thing' } },
        {
          command: 'schema.type/create',
          args: {
            'svc/name': 'Raw/Thing',
            'svc/fields': mandatoryFields('Raw/Thing').map((f) => ({
              'svc/name': f.name,
              'svc/type': f.type,
              'svc/meta': f.meta,
            })),
          },
        },
      ]);
      const created = await client.command<{ 'svc/id': string }>('svc.entity/create', {
        type: 'Raw/Thing',
        entity: { 'Raw/name': 'one' },
      });
      const [schema, rows] = await client.commands([
        { command: 'svc.schema/query', args: { 'with-description?': true } },
        {
          command: 'svc.entity/query',
          args: { query: { 'q/from': 'Raw/Thing', 'q/select': ['svc/id', 'Raw/name'] } },
        },
      ]);
      expect((schema as Schema)['svc/types'].some((t) => t['svc/name'] === 'Raw/Thing')).toBe(true);
      expect(rows).toEqual([{ 'svc/id': created['svc/id'], 'Raw/name': 'one' }]);
      expect((await client.schema.query({ withDescription: true }))['svc/types'].length).toBeGreaterThan(0);
      await expect(client.commands([{ command: 'svc.nope/nothing' }])).rejects.toMatchObject({
        kind: 'command',
        command: 'svc.nope/nothing',
        index: 0,
      });
    });

    test('field and type changes: create, set meta, rename, delete', async () => {
      await client.schema.createType({ name: 'Scratch/Thing' });
      await client.schema.createField('Scratch/Thing', { name: 'Scratch/Size', type: 'svc/decimal' });
      await client.schema.setFieldMeta('Scratch/Thing', 'Scratch/Size', 'ui/number-unit', 'kg');
      await client.schema.renameField('Scratch/Thing', 'Scratch/Size', 'Scratch/Weight');
      await client.schema.installMixins({ 'Scratch/Thing': ['rank'] });
      await client.schema.renameType('Scratch/Thing', 'Scratch/Item');
      let fields = (await client.schema.query())['svc/types'].find((t) => t['svc/name'] === 'Scratch/Item')![
        'svc/fields'
      ];
      expect(fields.find((f) => f['svc/name'] === 'Scratch/Weight')?.['svc/meta']).toMatchObject({
        'ui/number-unit': 'kg',
      });
      expect(fields.some((f) => f['svc/name'] === 'svc/rank')).toBe(true);
      await client.schema.deleteField('Scratch/Item', 'Scratch/Weight');
      fields = (await client.schema.query())['svc/types'].find((t) => t['svc/name'] === 'Scratch/Item')![
        'svc/fields'
      ];
      expect(fields.some((f) => f['svc/name'] === 'Scratch/Weight')).toBe(false);
      await client.entities.create('Scratch/Item', { 'Scratch/name': 'x' });
      // A type with entities is deleted only when asked to delete them too.
      await expect(client.schema.deleteType('Scratch/Item')).rejects.toBeInstanceOf(WorkspaceError);
      await client.schema.deleteType('Scratch/Item', { deleteEntities: true });
      expect((await client.schema.query())['svc/types'].some((t) => t['svc/name'] === 'Scratch/Item')).toBe(
        false,
      );
    });
  });

  describe('entities and queries', () => {
    test('create, update, collection items, delete, and the query builder over all of it', async () => {
      const [a, b, c] = await Promise.all(
        ['Spec', 'Build', 'Ship'].map((name, i) =>
          client.entities.create('Tracker/Task', {
            'Tracker/Name': name,
            'Tracker/Estimate': i + 1,
            'Tracker/Project': { 'svc/id': projectId },
            'Tracker/Due': { start: `2026-0${i + 1}-01`, end: `2026-0${i + 1}-20` },
          }),
        ),
      );
      expect(a!['Tracker/State']).toEqual({ 'svc/id': states[0]!.id });
      const done = await client.entities.update('Tracker/Task', {
        'svc/id': b!['svc/id'] as string,
        'Tracker/State': { 'svc/id': states[1]!.id },
      });
      expect(done['Tracker/State']).toEqual({ 'svc/id': states[1]!.id });

      const rows = await client
        .query('Tracker/Task')
        .select('Name', { Project: ['Name'] }, { State: ['enum/name'] })
        .where(eq('State.enum/name', 'Done'))
        .orderBy('svc/creation-date', 'desc')
        .limit(50)
        .all();
      expect(rows).toEqual([
        { 'svc/id': b!['svc/id'], Name: 'Build', Project: { Name: 'Weft' }, State: { 'enum/name': 'Done' } },
      ]);

      const big = await client
        .query('Tracker/Task')
        .select('Name')
        .where(gte('Estimate', 2))
        .where(isIn('Name', ['Build', 'Ship', 'Other']))
        .orderBy('Estimate', 'desc')
        .all();
      expect(big.map((r) => r.Name)).toEqual(['Ship', 'Build']);

      await client.entities.removeItems('Tracker/Project', projectId, 'Tracker/Tasks', [
        c!['svc/id'] as string,
      ]);
      const project = await client
        .query('Tracker/Project')
        .select('Name', { Tasks: many('Name') }, { open: count('Tasks') })
        .where(eq('svc/id', projectId))
        .first();
      expect(project?.Tasks.map((t: { Name: string }) => t.Name).sort()).toEqual(['Build', 'Spec']);
      expect(project?.open).toBe(2);
      await client.entities.addItems('Tracker/Project', projectId, 'Tracker/Tasks', [c!['svc/id'] as string]);

      await client.entities.delete('Tracker/Task', a!['svc/id'] as string);
      const left = await client.rawQuery({ 'q/from': 'Tracker/Task', 'q/select': ['Tracker/Name'] });
      expect(left).toHaveLength(2);
    });

    test("the local workspace's further operators: !=, q/not-in, q/contains, q/starts-with, q/not, q/or, q/end", async () => {
      await client.schema.createType({
        name: 'Ops/Item',
        fields: [
          { name: 'Ops/n', type: 'svc/int' },
          { name: 'Ops/span', type: 'svc/date-range' },
        ],
      });
      await Promise.all(
        ['Alpha', 'Beta', 'Gamma', 'alphabet'].map((name, n) =>
          client.entities.create('Ops/Item', {
            'Ops/name': name,
            'Ops/n': n,
            'Ops/span': { start: `2026-0${n + 1}-01`, end: `2026-0${n + 1}-10` },
          }),
        ),
      );
      const names = async (filter: Filter) =>
        (await client.query('Ops/Item').select('name').where(filter).all()).map((r) => r.name).sort();
      expect(await names(ne('n', 1))).toEqual(['Alpha', 'Gamma', 'alphabet']);
      expect(await names(notIn('name', ['Alpha', 'Beta']))).toEqual(['Gamma', 'alphabet']);
      expect(await names(contains('name', 'PHA'))).toEqual(['Alpha', 'alphabet']);
      expect(await names(startsWith('name', 'al'))).toEqual(['Alpha', 'alphabet']);
      expect(await names(not(startsWith('name', 'al')))).toEqual(['Beta', 'Gamma']);
      expect(await names(or(eq('n', 0), eq('n', 3)))).toEqual(['Alpha', 'alphabet']);
      expect(await names(lte(end('span'), '2026-02-10'))).toEqual(['Alpha', 'Beta']);
      const ordered = await client.query('Ops/Item').select('name').orderBy(start('span'), 'desc').all();
      expect(ordered.map((r) => r.name)).toEqual(['alphabet', 'Gamma', 'Beta', 'Alpha']);
    });

    test('pages walk every row once, in a stable order', async () => {
      await client.schema.createType({ name: 'Paging/Row', fields: [{ name: 'Paging/n', type: 'svc/int' }] });
      await Promise.all(
        Array.from({ length: 23 }, (_, n) => client.entities.create('Paging/Row', { 'Paging/n': n })),
      );
      const pages: number[][] = [];
      for await (const page of client.query('Paging/Row').select('n').orderBy('n').pages(10)) {
        pages.push(page.map((r) => r.n as number));
      }
      expect(pages.map((p) => p.length)).toEqual([10, 10, 3]);
      expect(pages.flat()).toEqual(Array.from({ length: 23 }, (_, n) => n));
      const seen: number[] = [];
      for await (const row of client.query('Paging/Row').select('n').where(gte('n', 5)).limit(7))
        seen.push(row.n as number);
      expect(seen.sort((x, y) => x - y)).toEqual([5, 6, 7, 8, 9, 10, 11]);
    });

    test('a failing command gets its own error, with the command, its position and the message', async () => {
      const results = await Promise.allSettled([
        client.entities.create('Tracker/Task', { 'Tracker/Name': 'fine' }),
        client.entities.create('Tracker/Task', { 'Tracker/Nope': 1 }),
      ]);
      expect(results[0]!.status).toBe('fulfilled');
      const reason = (results[1] as PromiseRejectedResult).reason as WorkspaceError;
      expect(reason).toBeInstanceOf(WorkspaceError);
      expect(reason.kind).toBe('command');
      expect(reason.command).toBe('svc.entity/create');
      expect(reason.index).toBe(1);
      expect(reason.serviceMessage).toContain('Tracker/Nope');
    });

    test('an explicit batch is atomic and resolves slots to results; a failure names the inner command', async () => {
      const id = '0b6cf1d4-2f7e-4a55-9d55-000000000001';
      const out = await client.batch((b) => ({
        task: b.entities.create('Tracker/Task', { 'svc/id': id, 'Tracker/Name': 'In a batch' }),
        link: b.entities.addItems('Tracker/Project', projectId, 'Tracker/Tasks', [id]),
      }));
      expect(out.task['svc/id']).toBe(id);
      expect(out.link).toBe('ok');

      const error = await client
        .batch((b) => [
          b.entities.update('Tracker/Task', { 'svc/id': id, 'Tracker/Name': 'renamed' }),
          b.entities.create('Tracker/Task', { 'Tracker/Nope': 1 }),
        ])
        .catch((e: unknown) => e as WorkspaceError);
      expect(error).toBeInstanceOf(WorkspaceError);
      expect((error as WorkspaceError).command).toBe('svc.entity/create');
      expect((error as WorkspaceError).path).toEqual([0, 1]);
      // Rolled back: the update before the failure did not happen.
      const row = await client.query('Tracker/Task').select('Name').where(eq('svc/id', id)).first();
      expect(row?.Name).toBe('In a batch');
    });

    test('HTTP errors carry the status and never the token', async () => {
      const wrong = createWorkspaceClient({
        namespace,
        url: local.url,
        token: 'not-a-valid-token-12345',
        rateLimit: false,
      });
      const error = await wrong.schema.query().catch((e: unknown) => e as WorkspaceError);
      expect(error).toBeInstanceOf(WorkspaceError);
      expect((error as WorkspaceError).status).toBe(401);
      expect(JSON.stringify(error)).not.toContain('not-a-valid-token-12345');
      expect(String((error as Error).stack)).not.toContain('not-a-valid-token-12345');
    });
  });

  describe('batching', () => {
    test('1,000 creates issued in one tick travel in at most 10 requests, each caller gets its own entity', async () => {
      await client.schema.createType({ name: 'Bulk/Row', fields: [{ name: 'Bulk/n', type: 'svc/int' }] });
      const counter = requestCounter();
      const bulk = createWorkspaceClient({
        namespace,
        url: local.url,
        token: local.token,
        rateLimit: false,
        onEvent: counter.onEvent,
      });
      const created = await Promise.all(
        Array.from({ length: 1000 }, (_, n) => bulk.entities.create('Bulk/Row', { 'Bulk/n': n })),
      );
      expect(counter.seen.requests).toBeLessThanOrEqual(10);
      expect(created.map((e) => e['Bulk/n'])).toEqual(Array.from({ length: 1000 }, (_, n) => n));
      expect(new Set(created.map((e) => e['svc/id'])).size).toBe(1000);
    });

    test('maxBatch sets the request size', async () => {
      const counter = requestCounter();
      const small = createWorkspaceClient({
        namespace,
        url: local.url,
        token: local.token,
        rateLimit: false,
        maxBatch: 4,
        onEvent: counter.onEvent,
      });
      await Promise.all(
        Array.from({ length: 10 }, (_, n) => small.entities.create('Bulk/Row', { 'Bulk/n': n })),
      );
      expect(counter.seen.requests).toBe(3);
    });
  });

  describe('documents and comments', () => {
    test('rich text through the entity field, by secret, and in bulk', async () => {
      const task = await client.entities.create('Tracker/Task', { 'Tracker/Name': 'Doc' });
      await client.documents.write(
        'Tracker/Task',
        task['svc/id'] as string,
        'Tracker/Notes',
        '# Plan\n\nShip it',
      );
      expect(
        await client.documents.read('Tracker/Task', task['svc/id'] as string, 'Tracker/Notes', 'html'),
      ).toContain('<h1>Plan</h1>');
      const secret = await client.documents.secretOf(
        'Tracker/Task',
        task['svc/id'] as string,
        'Tracker/Notes',
      );
      await client.documents.put(secret, 'plain', 'md');
      expect(await client.documents.get(secret, 'md')).toBe('plain');
      await client.documents.putMany([{ secret, content: 'bulk' }], 'md');
      expect(await client.documents.getMany([secret], 'md')).toEqual([{ secret, content: 'bulk' }]);
    });

    test('a comment in one call: entity, link and text', async () => {
      const [author] = await client.users.list();
      const comment = await client.comments.add({
        type: 'Tracker/Project',
        id: projectId,
        text: 'Looks good',
        authorId: author!['svc/id'],
      });
      const project = await client
        .query('Tracker/Project')
        .select({ 'comments/comments': many('comment/document-secret', { 'comment/author': ['user/name'] }) })
        .where(eq('svc/id', projectId))
        .first();
      expect(project?.['comments/comments']).toEqual([
        {
          'comment/document-secret': comment['comment/document-secret'],
          'comment/author': { 'user/name': author!['user/name'] },
        },
      ]);
      expect(await client.documents.get(comment['comment/document-secret'], 'md')).toBe('Looks good');
    });
  });

  describe('files', () => {
    let source: Server;
    let sourceUrl: string;
    beforeAll(async () => {
      source = createServer((req, res) => {
        res.setHeader('content-type', 'text/csv');
        res.end(req.headers['x-source-key'] === 'k1' ? 'a,b\n1,2\n' : 'no key');
      });
      source.listen(0, '127.0.0.1');
      await once(source, 'listening');
      sourceUrl = `http://127.0.0.1:${(source.address() as AddressInfo).port}/report.csv`;
    });
    afterAll(() => new Promise<void>((r) => source.close(() => r())));

    test('upload from a path, a Buffer and a stream; download; attach and detach', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'weft-client-'));
      const path = join(dir, 'notes.txt');
      await writeFile(path, 'from a path');
      const fromPath = await client.files.upload(path, { contentType: 'text/plain' });
      expect(fromPath).toMatchObject({
        'svc/name': 'notes.txt',
        'svc/content-type': 'text/plain',
        'svc/content-length': 'from a path'.length,
      });
      const fromBuffer = await client.files.upload(Buffer.from('from a buffer'), { name: 'b.bin' });
      const big = Buffer.alloc(300_000, 7);
      const fromStream = await client.files.upload(
        Readable.from([big.subarray(0, 100_000), big.subarray(100_000)]),
        {
          name: 'big.bin',
        },
      );
      expect(await text(await client.files.download(fromPath['svc/secret']))).toBe('from a path');
      expect(await text(await client.files.download(fromBuffer['svc/secret']))).toBe('from a buffer');
      const chunks: Buffer[] = [];
      for await (const chunk of await client.files.download(fromStream['svc/secret']))
        chunks.push(chunk as Buffer);
      expect(Buffer.concat(chunks).equals(big)).toBe(true);

      await client.files.attach('Tracker/Project', projectId, [fromPath['svc/id'], fromBuffer['svc/id']]);
      await client.files.detach('Tracker/Project', projectId, [fromBuffer['svc/id']]);
      const project = await client
        .query('Tracker/Project')
        .select({ 'Files/Files': many('svc/secret') })
        .where(eq('svc/id', projectId))
        .first();
      expect(project?.['Files/Files']).toEqual([{ 'svc/secret': fromPath['svc/secret'] }]);
    });

    test('from a URL, with headers sent to the source only', async () => {
      const file = await client.files.fromUrl({ url: sourceUrl, headers: { 'x-source-key': 'k1' } });
      expect(file['svc/name']).toBe('report.csv');
      expect(await text(await client.files.download(file['svc/secret']))).toBe('a,b\n1,2\n');
    });
  });

  describe('views, webhooks, tokens', () => {
    test('views over JSON-RPC: create, query, update, delete', async () => {
      const [view] = await client.views.create([
        {
          'svc/name': 'Board',
          'svc/type': 'board',
          'svc/meta': {},
          'svc/container-app': { 'svc/id': projectId },
        },
      ]);
      expect(view?.['svc/name']).toBe('Board');
      await client.views.update([{ id: view!['svc/id'], values: { 'svc/name': 'Roadmap' } }]);
      expect((await client.views.query({ ids: [view!['svc/id']] }))[0]?.['svc/name']).toBe('Roadmap');
      await client.views.delete([view!['svc/id']]);
      expect(await client.views.query({ ids: [view!['svc/id']] })).toEqual([]);
    });

    test('a webhook delivers typed effects to the receiver helper, with the correlation id', async () => {
      const deliveries: WebhookDelivery[] = [];
      const effects: string[] = [];
      const app = express();
      app.use(
        '/hooks/tasks',
        webhookReceiver({
          namespace,
          onDelivery: (d) => {
            deliveries.push(d);
          },
          onEffect: (e) => {
            effects.push(e.effect);
          },
        }),
      );
      const receiver = app.listen(0, '127.0.0.1');
      await once(receiver, 'listening');
      try {
        const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/tasks`;
        const hook = await client.webhooks.create({ url, type: 'Tracker/Task' });
        expect(hook).toMatchObject({ url, type: 'Tracker/Task', state: 'active', version: '2' });
        const task = await client.entities.create('Tracker/Task', { 'Tracker/Name': 'Hooked' });
        await client.entities.update(
          'Tracker/Task',
          { 'svc/id': task['svc/id'] as string, 'Tracker/Name': 'Hooked again' },
          { correlationId: 'corr-1' },
        );
        await expect.poll(() => deliveries.length, { timeout: 5000 }).toBeGreaterThanOrEqual(2);
        const update = deliveries.find((d) => d.command.correlationId === 'corr-1');
        const effect = update?.effects[0];
        expect(effect?.effect).toBe('svc.entity/update');
        if (effect?.effect === 'svc.entity/update') {
          expect(effect.values['Tracker/Name']).toBe('Hooked again');
          expect(effect.valuesBefore['Tracker/Name']).toBe('Hooked');
          expect(effect.valuesBefore['svc/modification-date']).toBe(task['svc/modification-date']);
        }
        expect(effects).toContain('svc.entity/update');
        // A delete tells what the entity held.
        await client.entities.delete('Tracker/Task', task['svc/id'] as string, { correlationId: 'corr-2' });
        await expect.poll(() => deliveries.some((d) => d.command.correlationId === 'corr-2')).toBe(true);
        const removal = deliveries.find((d) => d.command.correlationId === 'corr-2')?.effects[0];
        expect(removal?.effect).toBe('svc.entity/delete');
        if (removal?.effect === 'svc.entity/delete')
          expect(removal.valuesBefore?.['Tracker/Name']).toBe('Hooked again');
        const listed = await client.webhooks.list();
        await expect
          .poll(async () => (await client.webhooks.list()).find((h) => h.id === hook.id)?.runs.length, {
            timeout: 5000,
          })
          .toBeGreaterThanOrEqual(2);
        expect(listed.some((h) => h.id === hook.id)).toBe(true);
        await client.webhooks.delete(hook.id);
        expect((await client.webhooks.list()).some((h) => h.id === hook.id)).toBe(false);
      } finally {
        receiver.close();
      }
    });

    test('the receiver refuses a body that is not a delivery, with a JSON message', async () => {
      const app = express();
      app.use('/h', webhookReceiver({ namespace, onDelivery: () => {} }));
      const server = app.listen(0, '127.0.0.1');
      await once(server, 'listening');
      try {
        const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/h`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ effects: 'nope' }),
        });
        expect(res.status).toBe(400);
        expect(((await res.json()) as { message: string }).message).toMatch(/^Not a webhook delivery/);
      } finally {
        server.close();
      }
    });

    test('tokens: list, create, delete', async () => {
      const before = await client.tokens.list();
      const created = await client.tokens.create({ name: 'ci' });
      expect(typeof created.id).toBe('string');
      expect((await client.tokens.list()).length).toBe(before.length + 1);
      await client.tokens.delete(created.id);
      expect((await client.tokens.list()).map((t) => t.id)).toEqual(before.map((t) => t.id));
    });
  });

  test("speaks the workspace's namespace on the wire and svc to its caller", async () => {
    const sent: string[] = [];
    const spy = createWorkspaceClient({
      namespace,
      url: local.url,
      token: local.token,
      rateLimit: false,
      fetch: (input, init) => {
        if (typeof init?.body === 'string') sent.push(init.body);
        return fetch(input, init);
      },
    });
    await spy.entities.create('Tracker/Task', { 'Tracker/Name': 'On the wire' });
    const rows = await spy.query('Tracker/Task').select('Tracker/Name').limit(1).all();
    expect(sent.join('\n')).toContain(`"${namespace}.entity/query"`);
    expect(sent.join('\n')).toContain(`"${namespace}/id"`);
    expect(rows.length).toBe(1);
    expect(Object.keys(rows[0]!)).toContain('svc/id');
  });
});
