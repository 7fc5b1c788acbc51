// A local stand-in for a web server publishing .ics feeds: serves files by path and answers from
// a script first (push to `replies`), recording every request.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Reply {
  status: number;
  body?: string;
  headers?: Record<string, string>;
}

export interface FeedServer {
  /** Base address, e.g. `http://127.0.0.1:51234`. */
  url: string;
  /** Feed text by path, e.g. `feeds.set('/team.ics', '...')`. */
  feeds: Map<string, string>;
  /** Answers for the next requests, in order; once empty, a feed by path or 404. */
  replies: Reply[];
  requests: { url: string; headers: IncomingHttpHeaders }[];
  close(): Promise<void>;
}

export async function startFeedServer(): Promise<FeedServer> {
  const feeds = new Map<string, string>();
  const replies: Reply[] = [];
  const requests: FeedServer['requests'] = [];
  const server: Server = createServer((req, res) => {
    requests.push({ url: req.url ?? '', headers: req.headers });
    const reply = replies.shift();
    if (reply) {
      res.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers });
      res.end(reply.body ?? '');
      return;
    }
    const feed = feeds.get(req.url ?? '');
    if (feed === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('Not Found');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/calendar; charset=utf-8' });
    res.end(feed);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    feeds,
    replies,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
