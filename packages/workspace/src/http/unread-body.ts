import type { Request, Response } from 'express';

/**
 * Answers that come before a request's body was read (no such route, no token, too large) end
 * the connection: otherwise Node would read the rest of the body off the wire to keep the
 * connection alive, and a client could keep streaming into a request already answered. A request
 * without a body (most GETs) keeps its connection.
 */
export function closeIfBodyUnread(req: Request, res: Response): void {
  const declaresBody =
    req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  if (declaresBody && !req.complete && !res.headersSent) res.setHeader('Connection', 'close');
}
