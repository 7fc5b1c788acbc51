import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createChatNotifyApp } from '../../../apps/chat-notify/src/app.js';
import { type ChatServer, startChatServer } from '../../../apps/chat-notify/test/chat-server.js';
import { createServer as createAppServer, silentLogger } from '@weft/core';
import { AUTHOR, BOOK, type Seeded, seedBookshelf } from './support/bookshelf-seed.js';
import { AUTOMATION_RUN } from '../src/automations/store.js';
import { sendInTransaction } from '../src/jobs/job-queue.js';
import { automationRuns } from './support/automation-runs.js';
import { describeEachDatabase, typeArgs, useWorkspace } from './support/databases.js';

// Automations end to end: the real chat-notify app over HTTP, a local chat receiver, the
// workspace over HTTP; rules fire from commands, buttons from the API, scripts in their worker.

describeEachDatabase('automations', (target) => {
  const h = useWorkspace(target);
  let chat: ChatServer;
  let app: Server;
  let appUrl: string;
  let seeded: Seeded;

  beforeAll(async () => {
    chat = await startChatServer();
    app = createAppServer(createChatNotifyApp({ timeoutMs: 3000 }), { logger: silentLogger }).listen(
      0,
      '127.0.0.1',
    );
    await new Promise((r) => app.once('listening', r));
    appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
    seeded = await seedBookshelf(h);
  });
  afterAll(async () => {
    await chat?.close();
    app?.closeAllConnections();
    await new Promise((r) => app?.close(r));
  });

  const { addAutomation, addScriptButton, runsOf, finished } = automationRuns(h);

  it('a rule runs chat-notify with a filled template when a field of an entity changes', async () => {
    const rule = await addAutomation({
      name: 'Pages changed',
      trigger: 'updated',
      type: BOOK,
      field: 'bookshelf/pages',
      action: {
        kind: 'app',
        url: appUrl,
        action: 'send-message',
        // A rich-text field is its document's id and secret underneath: a template shows neither.
        args: {
          text: '{{Name}} by {{Author.Name}} ({{Author.country}}) now has {{Pages}} pages{{Summary}}{{Summary.secret}}',
        },
        account: { webhookUrl: `${chat.url}/hooks/secret-path` },
      },
    });
    // The API never shows the account back.
    const listed = await h.request('GET', '/api/automations');
    expect(JSON.stringify(listed.body)).not.toContain('secret-path');
    const before = chat.received.length;
    // A change of another field does not fire the rule; the watched field does.
    await h.run('svc.entity/update', {
      type: BOOK,
      entity: { 'svc/id': seeded.books[0], 'bookshelf/name': 'The Dispossessed' },
    });
    await h.run('svc.entity/update', {
      type: BOOK,
      entity: { 'svc/id': seeded.books[0], 'bookshelf/pages': 387 },
    });
    const [run] = await finished(rule.id);
    expect(run).toMatchObject({ state: 'done', message: null });
    const got = chat.received.slice(before);
    expect(got).toHaveLength(1);
    expect(got[0]!.url).toBe('/hooks/secret-path');
    expect(got[0]!.json).toEqual({ text: 'The Dispossessed by Ursula K. Le Guin (US) now has 387 pages' });
    expect(await runsOf(rule.id)).toHaveLength(1);
  });

  it('a failing action is recorded with the app’s message', async () => {
    const rule = await addAutomation({
      name: 'Bad account',
      trigger: 'created',
      type: AUTHOR,
      action: {
        kind: 'app',
        url: appUrl,
        action: 'send-message',
        args: { text: 'x' },
        account: { webhookUrl: 'ftp://nope' },
      },
    });
    await h.run('svc.entity/create', { type: AUTHOR, entity: { 'bookshelf/name': 'New author' } });
    const [run] = await finished(rule.id);
    expect(run!.state).toBe('failed');
    expect(run!.message).toBe(
      'The app refused the account (POST /validate): The webhook URL must use http or https, not ftp',
    );
    await h.request('DELETE', `/api/automations/${rule.id}`);
  });

  it('a button runs the action once per chosen entity', async () => {
    const button = await addAutomation({
      name: 'Announce',
      trigger: 'button',
      type: BOOK,
      action: {
        kind: 'app',
        url: appUrl,
        action: 'send-alert',
        args: { title: 'New: {{Name}}', severity: 'info', details: 'by {{Author}}' },
        account: { webhookUrl: `${chat.url}/hooks/button` },
      },
    });
    const before = chat.received.length;
    const res = await h.request('POST', `/api/automations/${button.id}/run`, {
      entityIds: [seeded.books[1], seeded.books[2]],
    });
    expect(res.status).toBe(202);
    const [run] = await finished(button.id);
    expect(run!.state).toBe('done');
    const texts = chat.received.slice(before).map((r) => (r.json as { text: string }).text);
    expect(texts).toEqual([
      ':information_source: *[INFO] New: Book <1>*\nby Stanisław Lem',
      ':information_source: *[INFO] New: Book <2>*\nby Ursula K. Le Guin',
    ]);
    const bad = await h.request('POST', `/api/automations/${button.id}/run`, { entityIds: 'x' });
    expect(bad.status).toBe(400);
  });

  it('a script creates an entity and comments on the current one through context.getService("svc")', async () => {
    const script = await addScriptButton(
      'Script',
      BOOK,
      `
          const svc = context.getService('svc');
          const book = args.currentEntities[0];
          const author = await svc.createEntity('bookshelf/author', { 'bookshelf/name': 'Reviewer of ' + book.name });
          await svc.addComment(book.type, book.Id, 'Checked **' + book.name + '** for ' + args.currentUser.Name, args.currentUser.Id, 'md');
          let escaped;
          try { escaped = context.getService.constructor('return typeof process')(); } catch (e) { escaped = 'blocked'; }
          return { author: author['svc/id'], process: typeof process, require: typeof require, escaped,
            shape: { author: book.author, pages: book.pages, type: book.type, user: args.currentUser.type, role: args.currentUser.Role } };
        `,
    );
    await h.request('POST', `/api/automations/${script.id}/run`, { entityIds: [seeded.books[0]] });
    const [run] = await finished(script.id);
    expect(run!.message).toBeNull();
    const answer = run!.answer as Record<string, any>;
    expect(answer).toMatchObject({ process: 'undefined', require: 'undefined', escaped: 'blocked' });
    expect(answer.shape).toEqual({
      author: { Id: seeded.authors[0], Name: 'Ursula K. Le Guin' },
      pages: 387,
      type: BOOK,
      user: 'svc/user',
      role: { Id: 'admin', Name: 'Admin' },
    });
    const [author] = await h.run('svc.entity/query', {
      query: { 'q/from': AUTHOR, 'q/select': ['bookshelf/name'], 'q/where': ['=', ['svc/id'], '$id'] },
      params: { $id: answer.author },
    });
    expect(author['bookshelf/name']).toBe('Reviewer of The Dispossessed');
    const [book] = await h.run('svc.entity/query', {
      query: {
        'q/from': BOOK,
        'q/select': [{ 'comments/comments': { 'q/select': ['comment/content'], 'q/limit': 'q/no-limit' } }],
        'q/where': ['=', ['svc/id'], '$id'],
      },
      params: { $id: seeded.books[0] },
    });
    expect(book['comments/comments'].map((c: any) => c['comment/content'])).toEqual([
      expect.stringContaining('Checked **The Dispossessed** for Admin'),
    ]);
  });

  it("a script's batch methods write many entities in one command each, as the service's do", async () => {
    const button = await addScriptButton(
      'Batches',
      BOOK,
      `
          const svc = context.getService('svc');
          const book = args.currentEntities[0];
          const made = await svc.createEntityBatch('bookshelf/author', [{ Name: 'Batch A' }, { Name: 'Batch B' }]);
          const ids = made.map((a) => a['svc/id']);
          await svc.updateEntityBatch('bookshelf/author', [{ id: ids[0], Name: 'Batch A2' }, { Id: ids[1], Name: 'Batch B2' }]);
          await svc.addCollectionItemBatch('bookshelf/author', 'bookshelf/books', [{ id: ids[0], itemId: book.Id }]);
          const linked = await svc.getEntityById('bookshelf/author', ids[0], ['Name', 'bookshelf/books']);
          await svc.removeCollectionItemBatch('bookshelf/author', 'bookshelf/books', [{ id: ids[0], itemId: book.Id }]);
          const names = (await svc.getEntitiesByIds('bookshelf/author', ids, ['Name'])).map((a) => a.Name).sort();
          await svc.deleteEntityBatch('bookshelf/author', ids);
          const left = await svc.getEntitiesByIds('bookshelf/author', ids, ['Name']);
          let refused;
          try { await svc.executeAction('x'); } catch (e) { refused = e.message; }
          const schema = await svc.getSchema();
          return { names, linked: linked['bookshelf/books'].length, left: left.length, refused,
            typed: schema['svc/types'].some((t) => t['svc/name'] === 'bookshelf/author') };
        `,
    );
    await h.request('POST', `/api/automations/${button.id}/run`, { entityIds: [seeded.books[0]] });
    const [run] = await finished(button.id);
    expect(run!.message).toBeNull();
    expect(run!.answer).toEqual({
      names: ['Batch A2', 'Batch B2'],
      linked: 1,
      left: 0,
      refused: expect.stringContaining('actions'),
      typed: true,
    });
  });

  it('an automation takes any type name the schema takes, spaces included', async () => {
    const type = `Orders ${randomUUID().slice(0, 6)}/Customer order`;
    await h.run('schema.type/create', typeArgs(type));
    const order = await h.run('svc.entity/create', {
      type,
      entity: { [`${type.split('/')[0]}/name`]: 'First' },
    });
    const button = await addScriptButton(
      'Name it',
      type,
      `const utils = context.getService('utils');
          return args.currentEntities.map((e) => [e.name, utils.getEntityUrl(e.type, e['Public Id'])]);`,
    );
    await h.request('POST', `/api/automations/${button.id}/run`, { entityIds: [order['svc/id']] });
    const [run] = await finished(button.id);
    expect(run!.message).toBeNull();
    // utils' links are the workspace's own address.
    expect(run!.answer).toEqual([
      ['First', `${h.url}/ui/entity?type=${encodeURIComponent(type)}&public-id=${order['svc/public-id']}`],
    ]);
    const bad = await h.request('POST', '/api/automations', {
      name: 'No app',
      trigger: 'button',
      type: 'no-slash',
      action: { kind: 'script', code: 'return 1;' },
    });
    expect(bad.status).toBe(400);
  });

  it("a script reads documents with the rights of the user who runs it: a secured field's document is closed to a non-admin", async () => {
    const type = `s${randomUUID().slice(0, 8)}/memo`;
    await h.run('schema.type/create', { ...typeArgs(type), 'svc/meta': { 'svc/secured?': true } });
    await h.run('schema.field/create', {
      'svc/holder-type': type,
      'svc/name': 's/body',
      'svc/type': 'Collaboration~Documents/Document',
      'svc/meta': { 'svc/entity-component?': true, 'svc/secured?': true },
    });
    const memo = await h.run('svc.entity/create', { type, entity: {} });
    const [row] = await h.run('svc.entity/query', {
      query: {
        'q/from': type,
        'q/select': [{ 's/body': ['Collaboration~Documents/secret'] }],
        'q/where': ['=', ['svc/id'], '$id'],
      },
      params: { $id: memo['svc/id'] },
    });
    const secret = row['s/body']['Collaboration~Documents/secret'] as string;
    await h.request('PUT', `/api/documents/${secret}`, { content: 'salary table' });
    const reader = await addScriptButton(
      'Reads a memo',
      BOOK,
      `
          const svc = context.getService('svc');
          if (args.currentUser.Role.Id !== 'admin') await svc.appendDocumentContent(${JSON.stringify(secret)}, 'defaced', 'md');
          return { content: await svc.getDocumentContent(${JSON.stringify(secret)}, 'md') };
        `,
    );
    const user = await h.ws.createUser({ name: 'Script runner' });
    const byUser = await h.request(
      'POST',
      `/api/automations/${reader.id}/run`,
      { entityIds: [seeded.books[0]] },
      user.token,
    );
    expect(byUser.status, JSON.stringify(byUser.body)).toBeLessThan(300);
    const [refused] = await finished(reader.id);
    expect(refused!.state).toBe('failed');
    expect(refused!.message).toContain('No permission for this document');
    await h.request('POST', `/api/automations/${reader.id}/run`, { entityIds: [seeded.books[0]] });
    const runs = await finished(reader.id, 2);
    expect(runs.map((r) => r.answer)).toContainEqual({ content: 'salary table' });
  });

  it('a run whose process died is run again, and given up after three starts', async () => {
    const button = await addScriptButton('Recover', BOOK, 'return args.currentEntities.length');
    // What a process that died mid-run leaves behind: a started run whose job is handed out again
    // (once the job expires, the queue's maintenance fails it into a retry).
    await h.ws.driver.transaction(async (tx) => {
      const { rows } = await tx.query<{ id: string }>(
        `INSERT INTO weft_automation_runs (automation_id, entity_ids, user_id, state, attempts)
         VALUES ($1, ARRAY[$2]::uuid[], $3, 'running', 1), ($1, ARRAY[$2]::uuid[], $3, 'running', 3)
         RETURNING id::text`,
        [button.id, seeded.books[0], h.ws.adminUserId],
      );
      await sendInTransaction(
        tx,
        AUTOMATION_RUN,
        rows.map((r) => ({ runId: r.id })),
      );
    });
    h.ws.jobs.wake(AUTOMATION_RUN);
    const runs = await finished(button.id, 2);
    expect(runs.map((r: any) => [r.state, r.attempts, r.message])).toEqual([
      ['failed', 4, 'The run was interrupted too often and was given up'],
      ['done', 2, null],
    ]);
  });

  it('a script that loops forever is stopped by its time limit and recorded as failed', async () => {
    const looping = await addScriptButton('Loop', BOOK, 'while (true) {}', { timeoutMs: 300 });
    await h.request('POST', `/api/automations/${looping.id}/run`, { entityIds: [seeded.books[0]] });
    const [run] = await finished(looping.id);
    expect(run).toMatchObject({
      state: 'failed',
      message: 'The script ran longer than 300 ms and was stopped',
    });
    // The workspace still answers.
    expect((await h.request('GET', '/api/automations')).status).toBe(200);
  });
});
