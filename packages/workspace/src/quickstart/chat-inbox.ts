// The quick start's chat receiver: a stand-in for a chat service's incoming webhook (Slack,
// Mattermost: POST JSON `{text}`), on this machine, so the sample rule has somewhere real to post.
// Each message it receives becomes an entity of the type `inbox/message` in the workspace, so the
// page shows the messages as it shows any type (/ui/type?name=inbox%2Fmessage), newest last.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import type { Workspace } from '../workspace.js';

export const INBOX_TYPE = 'inbox/message';
const MAX_BODY = 64 * 1024;
const message = z.object({ text: z.string().min(1).max(10_000), channel: z.string().max(200).optional() });

export interface ChatInbox {
  /** the webhook address to give chat-notify's account, e.g. http://127.0.0.1:3107/hook */
  url: string;
  close(): Promise<void>;
}

async function run(ws: Workspace, commands: Array<{ command: string; args: unknown }>): Promise<void> {
  for (const result of await ws.execute(commands)) {
    if (!result.success) throw new Error(result.error.message);
  }
}

/** Creates the inbox's type once (a later start on kept data finds it). */
async function ensureInboxType(ws: Workspace): Promise<void> {
  const [schema] = await ws.execute([{ command: 'svc.schema/query', args: {} }]);
  const types = (
    schema?.success ? (schema.result as { 'svc/types': Array<{ 'svc/name': string }> }) : undefined
  )?.['svc/types'];
  if (types?.some((t) => t['svc/name'] === INBOX_TYPE)) return;
  const label = (text: string) => ({ 'ui/label': text });
  await run(ws, [
    {
      command: 'schema.type/create',
      args: {
        'svc/name': INBOX_TYPE,
        'svc/meta': {},
        'svc/fields': [
          { 'svc/name': 'svc/id', 'svc/type': 'svc/uuid' },
          { 'svc/name': 'svc/public-id', 'svc/type': 'svc/text' },
          { 'svc/name': 'svc/creation-date', 'svc/type': 'svc/date-time' },
          { 'svc/name': 'svc/modification-date', 'svc/type': 'svc/date-time' },
          {
            'svc/name': 'inbox/name',
            'svc/type': 'svc/text',
            'svc/meta': { 'ui/title?': true, ...label('Message') },
          },
          { 'svc/name': 'inbox/channel', 'svc/type': 'svc/text', 'svc/meta': label('Channel') },
          { 'svc/name': 'inbox/received-at', 'svc/type': 'svc/date-time', 'svc/meta': label('Received At') },
        ],
      },
    },
  ]);
}

/** Starts the receiver on 127.0.0.1:`port` (0: any free port). */
export async function startChatInbox(ws: Workspace, port = 0): Promise<ChatInbox> {
  await ensureInboxType(ws);
  const server: Server = createServer((req, res) => {
    const answer = (status: number, text: string) =>
      res.writeHead(status, { 'content-type': 'text/plain' }).end(text);
    if (req.method !== 'POST') return answer(405, 'POST a JSON {text}');
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
      else if (!res.headersSent) {
        // Answered at once; the rest is read and dropped, and the connection closed after.
        res.setHeader('connection', 'close');
        answer(413, 'too large');
      }
    });
    req.on('end', () => {
      if (res.headersSent) return;
      let parsed: z.infer<typeof message>;
      try {
        parsed = message.parse(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        return answer(400, 'invalid_payload');
      }
      run(ws, [
        {
          command: 'svc.entity/create',
          args: {
            type: INBOX_TYPE,
            entity: {
              'inbox/name': parsed.text,
              'inbox/channel': parsed.channel ?? null,
              'inbox/received-at': new Date().toISOString(),
            },
          },
        },
      ]).then(
        () => answer(200, 'ok'),
        () => answer(500, 'the workspace did not take the message'),
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}/hook`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
