import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A local webhook receiver that records each delivery's body. */
export function hookReceiver() {
  const bodies: any[] = [];
  let server: Server;
  let url = '';
  return {
    bodies,
    get url() {
      return url;
    },
    async start() {
      server = createServer((req, res) => {
        let data = '';
        req.on('data', (c) => {
          data += c;
        });
        req.on('end', () => {
          bodies.push(JSON.parse(data));
          res.writeHead(200).end();
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    },
    async until(count: number) {
      const deadline = Date.now() + 20_000;
      while (bodies.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      return bodies;
    },
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
}
