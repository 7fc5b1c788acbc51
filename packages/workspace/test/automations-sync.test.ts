import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type TestApp, testApp } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bookshelfApp } from '../../../apps/bookshelf/src/app.js';
import { dataset, GENRES } from '../../../apps/bookshelf/src/dataset.js';
import { createChatNotifyApp } from '../../../apps/chat-notify/src/app.js';
import { type ChatServer, startChatServer } from '../../../apps/chat-notify/test/chat-server.js';
import { createServer as createAppServer, silentLogger } from '@weft/core';
import { SecretBox } from '../src/host/secret-box.js';
import { type HostedWorkspace, startHostedWorkspace } from '../src/host/start-hosted-workspace.js';
import { waitFor } from './support/bookshelf-seed.js';

// Rules on synced data: apps/bookshelf synced through the app host fires a "created" rule once
// per synced genre, and a change to a synced book fires an "updated" rule; both run the real
// chat-notify app against a local chat receiver.

describe('automations on synced entities', () => {
  const TOKEN = 'automations-sync-token';
  let books: TestApp;
  let ws: HostedWorkspace;
  let chat: ChatServer;
  let notify: Server;
  let notifyUrl: string;

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(ws.url + path, {
      method,
      headers: { authorization: `Token ${TOKEN}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  beforeAll(async () => {
    chat = await startChatServer();
    // Rule runs start while the sync still writes pages; PGlite works on this process' event loop,
    // so on a loaded machine the chat server in this process can be slow to answer.
    notify = createAppServer(createChatNotifyApp({ timeoutMs: 15_000 }), { logger: silentLogger }).listen(
      0,
      '127.0.0.1',
    );
    await new Promise((r) => notify.once('listening', r));
    notifyUrl = `http://127.0.0.1:${(notify.address() as AddressInfo).port}`;
    books = await testApp(bookshelfApp);
    ws = await startHostedWorkspace({
      adminToken: TOKEN,
      rateLimit: 0,
      webhooks: false,
      box: new SecretBox('automations-sync-key'),
      hostOptions: { scheduleEveryMs: 0 },
      log: () => {},
    });
  });
  afterAll(async () => {
    await ws?.close();
    await books?.close();
    await chat?.close();
    notify?.closeAllConnections();
    await new Promise((r) => notify?.close(r));
  });

  it('a created rule runs for every synced entity, an updated rule when a synced entity changes', async () => {
    const action = (path: string, text: string) => ({
      kind: 'app',
      url: notifyUrl,
      action: 'send-message',
      args: { text },
      account: { webhookUrl: `${chat.url}/${path}` },
    });
    const created = await api('POST', '/api/automations', {
      name: 'New genre',
      trigger: 'created',
      type: 'bookshelf/genre',
      action: action('genres', 'New genre: {{Name}}'),
    });
    expect(created.status).toBe(201);
    const source = await api('POST', '/api/host/sources', { url: books.url });
    const run = await api('POST', `/api/host/sources/${source.body.id}/syncs?wait=true`);
    expect(run.body.status).toBe('succeeded');
    const genreRuns = await waitFor('a run per synced genre', async () => {
      const runs = (await api('GET', `/api/automations/runs?automation=${created.body.id}`)).body as any[];
      return runs.length === GENRES.length && runs.every((r) => r.state === 'done') ? runs : undefined;
    });
    expect(genreRuns).toHaveLength(GENRES.length);
    const genreTexts = chat.received.filter((r) => r.url === '/genres').map((r) => (r.json as any).text);
    expect(genreTexts.sort()).toEqual(GENRES.map((g) => `New genre: ${g.name}`).sort());

    const updated = await api('POST', '/api/automations', {
      name: 'Pages changed',
      trigger: 'updated',
      type: 'bookshelf/book',
      field: 'bookshelf/pages',
      action: action('books', '{{Name}} by {{Author.Name}}: {{Pages}} pages'),
    });
    const first = dataset().books[0]!;
    const [found] = (
      await api('POST', '/api/commands', [
        {
          command: 'svc.entity/query',
          args: {
            query: {
              'q/from': 'bookshelf/book',
              'q/select': ['svc/id'],
              'q/where': ['=', ['bookshelf/id'], '$id'],
            },
            params: { $id: first.id },
          },
        },
      ])
    ).body;
    const id = found.result[0]['svc/id'];
    await api('POST', '/api/commands', [
      {
        command: 'svc.entity/update',
        args: { type: 'bookshelf/book', entity: { 'svc/id': id, 'bookshelf/pages': 999 } },
      },
    ]);
    await waitFor('the updated rule', async () => {
      const runs = (await api('GET', `/api/automations/runs?automation=${updated.body.id}`)).body as any[];
      return runs[0]?.state === 'done' ? runs : undefined;
    });
    const author = dataset().authors.find((a) => a.id === first.authorId)!;
    expect(chat.received.filter((r) => r.url === '/books').map((r) => (r.json as any).text)).toEqual([
      `${first.title} by ${author.name}: 999 pages`,
    ]);
  }, 60_000);
});
