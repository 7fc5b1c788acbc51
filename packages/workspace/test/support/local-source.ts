import { lookup as dnsLookup } from 'node:dns';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback HTTP server for outbound tests: records every request it receives (so a test can
 * tell that a refused address was never connected to) and answers with `handle`.
 */
export function localSource(handle: (req: IncomingMessage, res: ServerResponse) => void) {
  const seen: Array<{ method: string; url: string; headers: IncomingMessage['headers'] }> = [];
  let server: Server;
  let port = 0;
  return {
    seen,
    get port() {
      return port;
    },
    get url() {
      return `http://127.0.0.1:${port}`;
    },
    async start() {
      server = createServer((req, res) => {
        seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
        handle(req, res);
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      port = (server.address() as AddressInfo).port;
    },
    stop: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

/** A free loopback port nothing listens on (closed again before it is returned). */
export async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

type LookupCallback = (error: Error | null, address?: unknown, family?: number) => void;

/**
 * A DNS resolution (dns.lookup's signature) answering `names` itself and everything else as the
 * system does: the tests' own host names resolve to loopback without any DNS server.
 */
export function namesLookup(names: Record<string, string>): typeof dnsLookup {
  return ((hostname: string, options: object, callback: LookupCallback) => {
    const address = names[hostname];
    if (!address) return dnsLookup(hostname, options, callback as never);
    if ((options as { all?: boolean }).all) callback(null, [{ address, family: 4 }]);
    else callback(null, address, 4);
  }) as unknown as typeof dnsLookup;
}
