// A workspace set up as the quick start sets it up, for the tests of its automations: bookshelf
// registered and synced, chat-notify listening, the local chat receiver started.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createAppServer, silentLogger } from '@weft/core';
import { type TestApp, testApp } from '@weft/core/testing';
import { expect } from 'vitest';
import { bookshelfApp } from '../../../../apps/bookshelf/src/app.js';
import { createChatNotifyApp } from '../../../../apps/chat-notify/src/app.js';
import { SecretBox } from '../../src/host/secret-box.js';
import { type HostedWorkspace, startHostedWorkspace } from '../../src/host/start-hosted-workspace.js';
import { type ChatInbox, startChatInbox } from '../../src/quickstart/chat-inbox.js';

type Database = NonNullable<Parameters<typeof startHostedWorkspace>[0]>['database'];

export interface QuickStartWorkspace {
  ws: HostedWorkspace;
  /** bookshelf's source, synced */
  sourceId: string;
  chatNotifyUrl: string;
  inbox: ChatInbox;
  close(): Promise<void>;
}

export async function startQuickStartWorkspace(
  target: { create(): Promise<{ database: Database; drop(): Promise<void> }> },
  options: { adminToken: string; secretKey: string },
): Promise<QuickStartWorkspace> {
  const { database, drop } = await target.create();
  const bookshelf: TestApp = await testApp(bookshelfApp);
  const chatNotify: Server = createAppServer(createChatNotifyApp({ timeoutMs: 5000 }), {
    logger: silentLogger,
  }).listen(0, '127.0.0.1');
  await new Promise((r) => chatNotify.once('listening', r));
  const ws = await startHostedWorkspace({
    database,
    adminToken: options.adminToken,
    rateLimit: 0,
    webhooks: false,
    box: new SecretBox(options.secretKey),
    hostOptions: { scheduleEveryMs: 0 },
    log: () => {},
  });
  const sourceId = (await ws.apps.addSource({ url: bookshelf.url })).id;
  expect((await ws.apps.sync(sourceId, { wait: true })).status).toBe('succeeded');
  const inbox = await startChatInbox(ws);
  return {
    ws,
    sourceId,
    chatNotifyUrl: `http://127.0.0.1:${(chatNotify.address() as AddressInfo).port}`,
    inbox,
    async close() {
      await inbox.close();
      await ws.close();
      await bookshelf.close();
      chatNotify.closeAllConnections();
      await new Promise((r) => chatNotify.close(r));
      await drop();
    },
  };
}
