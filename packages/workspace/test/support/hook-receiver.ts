import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local webhook receiver: records every delivery it answers 200 and answers the statuses it is
 * told to (`statuses`, taken in turn), then 200. Each delivery is `{method, type (its
 * content-type), body}`; loosely typed, as the tests read into the bodies.
 */
export function hookReceiver() {
  const bodies: any[] = [];
  const statuses: number[] = [];
  let server: Server;
  let url = '';
  let waiters: Array<() => void> = [];
  return {
    bodies,
    statuses,
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
          const status = statuses.shift() ?? 200;
          if (status === 200)
            bodies.push({ method: req.method, type: req.headers['content-type'], body: JSON.parse(data) });
          res.writeHead(status).end();
          for (const w of waiters) w();
          waiters = [];
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    },
    /** The deliveries once there are `count` of them (or after 20 s, for the test to fail on). */
    async until(count: number) {
      const deadline = Date.now() + 20_000;
      while (bodies.length < count && Date.now() < deadline)
        await new Promise<void>((r) => waiters.push(r) && setTimeout(r, 200));
      return bodies;
    },
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
}
