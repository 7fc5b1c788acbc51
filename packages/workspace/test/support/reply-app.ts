import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { auth, createServer, defineApp, field, input, silentLogger } from '@weft/core';

// An app whose webhook pre-process answers whatever reply a test sets: the app, not the third
// party, chooses the event URL's reply. The event concerns no workspace of its source, so nothing
// is queued: only the reply matters. A sync gives one note (for the pages to show).

export interface ReplyAppControl {
  /** the body the sender is to get (undefined: the app gives none) */
  reply: unknown;
}

export function replyApp(control: ReplyAppControl) {
  return defineApp({
    id: 'replying',
    name: 'Replying',
    version: '1.0.0',
    description: 'answers events with the reply a test sets',
    website: 'http://127.0.0.1/',
    authentication: [
      auth.fields({
        id: 'token',
        name: 'Token',
        fields: { token: input.password({ name: 'Token' }) },
        async validate() {
          return { name: 'Replier', accountId: 'acct-replying' };
        },
      }),
    ],
    sync: {
      types: {
        note: {
          name: 'Notes',
          fields: { id: field.id(), name: field.title({ name: 'Text' }) },
          async *data() {
            yield { id: 'n1', name: 'First note' };
          },
        },
      },
      webhooks: {
        async install() {
          return { id: 'hook-replying', events: [], workspaceId: 'ws-replying' };
        },
        async uninstall() {},
        async verify() {
          return 'hook-replying';
        },
        async transform() {
          return {};
        },
        async preProcess() {
          return { reply: control.reply, workspaceIds: [] };
        },
      },
    },
  });
}

/** Serves the app on 127.0.0.1; answers its address and a function that stops it. */
export async function listenReplyApp(
  control: ReplyAppControl,
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = await new Promise((resolve) => {
    const s = createServer(replyApp(control), { logger: silentLogger }).listen(0, '127.0.0.1', () =>
      resolve(s),
    );
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
