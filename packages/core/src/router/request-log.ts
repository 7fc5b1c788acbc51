import type { RequestHandler } from 'express';
import type { Logger } from '../logging/logger.js';
import { clip } from '../logging/clip.js';
import { requestFacts } from './handle.js';

/**
 * One structured line per request: method, path, status, duration, and the operation and
 * correlation ids when sent. Bodies are never logged, so account secrets cannot leak here;
 * error messages were redacted before they reached `facts.error`.
 */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    // 'close' also fires when the service hangs up before the answer is complete.
    res.once('close', () => {
      const facts = requestFacts(res);
      const correlationId = req.get('x-correlation-id') ?? req.get('x-request-id');
      const line: Record<string, unknown> = {
        method: clip(req.method, 20),
        path: clip(req.originalUrl.split('?')[0], 300),
        // nginx's 499 "client closed request" when the service hung up before any answer.
        status: res.headersSent ? res.statusCode : 499,
        durationMs: Number(process.hrtime.bigint() - started) / 1e6,
      };
      if (facts.route) line.route = facts.route;
      // Every value below may come from the request: capped so a line stays a line.
      if (facts.requestedType) line.requestedType = clip(facts.requestedType, 100);
      if (facts.operationId) line.operationId = clip(facts.operationId, 100);
      if (correlationId) line.correlationId = clip(correlationId, 100);
      if (facts.error) line.error = clip(facts.error, 1_000);
      if (!res.writableFinished) line.aborted = true;
      (res.statusCode >= 500 ? logger.error : res.statusCode >= 400 ? logger.warn : logger.info).call(
        logger,
        line,
        'request',
      );
    });
    next();
  };
}
