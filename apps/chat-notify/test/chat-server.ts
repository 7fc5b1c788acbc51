// A local stand-in for a chat service's incoming webhook: records every request and answers
// from a script (default 200 "ok", as Slack does).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: unknown;
}

export interface Reply {
  status: number;
  body?: string;
  headers?: Record<string, string>;
}

export interface ChatServer {
  /** Base address, e.g. `http://127.0.0.1:51234`. */
  url: string;
  received: Received[];
  /** Answers for the next requests, in order (push to it); once empty, every request gets 200 "ok". */
  replies: Reply[];
  close(): Promise<void>;
}

export async function startChatServer(): Promise<ChatServer> {
  const state = { received: [] as Received[], replies: [] as Reply[] };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      state.received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, json });
      const reply = state.replies.shift() ?? { status: 200, body: 'ok' };
      res.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers });
      res.end(reply.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received: state.received,
    replies: state.replies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
