import type { Server } from 'node:http';
import express, { type Express } from 'express';
import type { AppDefinition } from '../define/app.js';
import { createRouter } from './create-router.js';
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
  server.use(createRouter(definition, options));
  server.use((req, res) => {
    res.status(404).json({ message: `No such endpoint: ${req.method} ${req.path}` });
  });
  return server;
}

export interface StartOptions extends RouterOptions {
  /** Port to listen on; default `PORT` from the environment, else `defaultPort`. */
  port?: number;
  /** The app's own default when `PORT` is unset; default 3000. */
  defaultPort?: number;
  host?: string;
  /** Print `<name> listening on <url>` when ready; default true. */
  announce?: boolean;
}

export interface RunningApp {
  url: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

/**
 * Starts an app on `PORT` (or its default), prints its URL when ready, and closes gracefully
 * on SIGTERM and SIGINT, finishing the requests in flight.
 */
export async function startServer(
  definition: AppDefinition<any, any, any, any>,
  options: StartOptions = {},
): Promise<RunningApp> {
  const envPort = process.env.PORT ? Number(process.env.PORT) : undefined;
  const port = options.port ?? (Number.isInteger(envPort) ? envPort! : (options.defaultPort ?? 3000));
  const host = options.host ?? process.env.HOST ?? '0.0.0.0';
  const app = createServer(definition, options);
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(port, host, () => resolve(s));
    s.once('error', reject);
  });
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  const url = `http://${host === '0.0.0.0' || host === '::' ? 'localhost' : host}:${actualPort}`;
  const close = () =>
    new Promise<void>((resolve, reject) => {
      server.close((error) => (error ? reject(error) : resolve()));
      server.closeIdleConnections();
    });
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
