import type { Server } from 'node:http';
import type { Socket } from 'node:net';

// The limits of a server that faces the network, in a module of their own: the local workspace
// hardens its server with them too, and imports them without the app server, Express's router
// and the OAuth clients (see the `@weft/core/hardening` entry).

/** A server's limits (`startServer`'s options of the same names). */
export interface ServerLimits {
  /** Most simultaneous connections; more are refused at once. Default `WEFT_MAX_CONNECTIONS`, else 1,000. */
  maxConnections?: number;
  /** Time for a client to send the request headers, in ms; default 10,000. */
  headersTimeoutMs?: number;
  /** Time for a client to send the whole request, in ms; default 30,000. */
  requestTimeoutMs?: number;
  /** Idle keep-alive time, in ms; default 5,000 (behind a load balancer: more than its idle timeout). */
  keepAliveTimeoutMs?: number;
}

/** A whole number from the environment, or undefined when unset or not one. */
export const envNumber = (name: string): number | undefined => {
  const value = process.env[name];
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
};

/**
 * Limits of a Node HTTP server serving an app: connection cap, explicit timeouts, and a JSON
 * answer to requests Node's parser refuses (malformed, oversized headers), which Node answers
 * in plain text otherwise.
 */
export function hardenServer(server: Server, options: ServerLimits = {}): Server {
  server.maxConnections = options.maxConnections ?? envNumber('WEFT_MAX_CONNECTIONS') ?? 1_000;
  server.headersTimeout = options.headersTimeoutMs ?? 10_000;
  server.requestTimeout = options.requestTimeoutMs ?? 30_000;
  server.keepAliveTimeout = options.keepAliveTimeoutMs ?? 5_000;
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    // As Node's own handler: only when no answer has started on this socket.
    const answering = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (!socket.writable || error.code === 'ECONNRESET' || answering?.headersSent) {
      socket.destroy();
      return;
    }
    const [status, text, message] =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', 'Request headers are too large']
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'Request Timeout', 'The request took too long to arrive']
          : [400, 'Bad Request', 'Malformed HTTP request'];
    const body = JSON.stringify({ message });
    socket.end(
      `HTTP/1.1 ${status} ${text}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  return server;
}
