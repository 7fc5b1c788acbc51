// A hand-written app for the tests that play one as apps in production answer (not a weft app):
// a plain HTTP server on 127.0.0.1 that hands each request (method, path, body text) to `answer`
// and sends what it returns, JSON unless the answer names its own content type.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RawRequest {
  method: string;
  path: string;
  text: string;
}

export interface RawAnswer {
  status: number;
  /** sent as JSON, or as it is when `headers` give a content type */
  body: unknown;
  headers?: Record<string, string>;
}

export async function listenRawApp(
  answer: (req: RawRequest) => RawAnswer | Promise<RawAnswer>,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => {
      text += c.toString();
    });
    req.on('end', async () => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const out = await answer({ method: req.method ?? 'GET', path, text });
      const own = out.headers?.['content-type'] !== undefined;
      res.writeHead(out.status, { 'content-type': 'application/json', ...out.headers });
      res.end(own ? String(out.body) : JSON.stringify(out.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
