import { type Server, createServer as createHttpServer } from 'node:http';
import type { Socket } from 'node:net';
import express, { type Express } from 'express';
import type { AppDefinition } from '../define/app.js';
import { clip } from '../logging/clip.js';
import { mountProtocol } from './create-router.js';
import { envNumber, hardenServer, type ServerLimits } from './harden-server.js';
import type { RouterOptions } from './router-options.js';

/**
 * A whole Express application for an app: the protocol router, plus JSON 404s for any other
 * path, so nothing ever answers HTML.
 */
export function createServer(
  definition: AppDefinition<any, any, any, any>,
  options: RouterOptions = {},
): Express {
  const server = express();
  server.disable('x-powered-by');
  // The service never sends conditional requests: hashing every page for an ETag is waste.
  server.set('etag', false);
  server.set('case sensitive routing', true);
  server.set('strict routing', true);
  // The settings above are read when the application's router is first made, just below.
  mountProtocol(server.router, definition, options);
  server.use((req, res) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.status(404).json({ message: `No such endpoint: ${clip(req.method, 20)} ${clip(req.path)}` });
  });
  return server;
}

export interface StartOptions extends RouterOptions, ServerLimits {
  /** Port to listen on; default `PORT` from the environment, else `defaultPort`. */
  port?: number;
  /** The app's own default when `PORT` is unset; default 3000. */
  defaultPort?: number;
  host?: string;
  /** Print `<name> listening on <url>` when ready; default true. */
  announce?: boolean;
  /**
   * On SIGTERM/SIGINT: how long requests in flight may take to finish before their connections
   * are cut, in ms; default `WEFT_SHUTDOWN_GRACE_MS`, else DEFAULT_SHUTDOWN_GRACE_MS.
   */
  shutdownGraceMs?: number;
  /**
   * When listening fails (port in use, no permission): print one clear line to stderr and exit
   * with status 1 (default), or reject with that message (`false`, for embedding and tests).
   */
  exitOnError?: boolean;
}

/**
 * The grace period on SIGTERM without an option or WEFT_SHUTDOWN_GRACE_MS: under the 10 s that
 * `docker stop` and most container platforms wait before SIGKILL, so a process whose requests
 * outlast it still exits 0 rather than being killed.
 */
export const DEFAULT_SHUTDOWN_GRACE_MS = 8_000;

export interface RunningApp {
  url: string;
  port: number;
  server: Server;
  /** Stops accepting, answers the requests in flight (within the grace period) and closes every connection. */
  close(): Promise<void>;
}

/**
 * Starts an app on `PORT` (or its default), prints its URL when ready, and shuts down on
 * SIGTERM and SIGINT within a bounded grace period: idle and half-sent connections are closed
 * at once, requests in flight are answered, and whatever is left when the grace period ends is cut.
 */
export async function startServer(
  definition: AppDefinition<any, any, any, any>,
  options: StartOptions = {},
): Promise<RunningApp> {
  const envPort = process.env.PORT ? Number(process.env.PORT) : undefined;
  const port = options.port ?? (Number.isInteger(envPort) ? envPort! : (options.defaultPort ?? 3000));
  const host = options.host ?? process.env.HOST ?? '0.0.0.0';
  const grace = options.shutdownGraceMs ?? envNumber('WEFT_SHUTDOWN_GRACE_MS') ?? DEFAULT_SHUTDOWN_GRACE_MS;
  const app = createServer(definition, options);
  // Node enforces the header and request timeouts when it checks connections: every 30 s by
  // default, which lets a slow client hold a connection for up to 40 s.
  const server = createHttpServer({ connectionsCheckingInterval: 1_000 }, app);
  hardenServer(server, options);
  const connections = trackConnections(server);

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    const message = listenFailure(definition.name, host, port, error as NodeJS.ErrnoException);
    if (options.exitOnError ?? true) {
      process.stderr.write(`${message}\n`);
      process.exit(1);
    }
    throw new Error(message, { cause: error });
  }

  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  const url = `http://${host === '0.0.0.0' || host === '::' ? 'localhost' : host}:${actualPort}`;
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= new Promise<void>((resolve) => {
      const timer = setTimeout(() => connections.destroyAll(), grace);
      timer.unref();
      server.close(() => {
        clearTimeout(timer);
        resolve();
      });
      connections.startDraining();
    }));
  const onSignal = () => {
    void close().then(() => process.exit(0));
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  if (options.announce ?? true) console.log(`${definition.name} listening on ${url}`);
  return {
    url,
    port: actualPort,
    server,
    close: async () => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      await close();
    },
  };
}

function listenFailure(name: string, host: string, port: number, error: NodeJS.ErrnoException): string {
  const code = error?.code ?? 'unknown error';
  if (code === 'EADDRINUSE')
    return `${name} could not start: port ${port} is already in use (EADDRINUSE); stop the other process or set PORT`;
  if (code === 'EACCES') return `${name} could not start: no permission to listen on port ${port} (EACCES)`;
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
    return `${name} could not start: host ${host} is not an address of this machine (${code})`;
  return `${name} could not listen on ${host}:${port}: ${error?.message ?? code}`;
}

/**
 * Which sockets carry a request in flight. Node stops enforcing its header timeout once the
 * server is closing, so shutdown must itself end the sockets that have no request (idle
 * keep-alives, and clients still sending headers) and close the others once answered.
 */
function trackConnections(server: Server) {
  const sockets = new Set<Socket>();
  const busy = new Map<Socket, number>();
  let draining = false;
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => {
      sockets.delete(socket);
      busy.delete(socket);
    });
  });
  server.on('request', (req, res) => {
    const socket = req.socket as Socket;
    busy.set(socket, (busy.get(socket) ?? 0) + 1);
    if (draining && !res.headersSent) res.setHeader('Connection', 'close');
    res.once('close', () => {
      // The client may have gone away mid-request: its socket closed first and is not counted again.
      if (!sockets.has(socket)) return;
      const left = (busy.get(socket) ?? 1) - 1;
      busy.set(socket, left);
      if (draining && left === 0) socket.end();
    });
  });
  return {
    startDraining() {
      draining = true;
      for (const socket of sockets) if (!busy.get(socket)) socket.destroy();
    },
    destroyAll() {
      for (const socket of sockets) socket.destroy();
    },
  };
}
