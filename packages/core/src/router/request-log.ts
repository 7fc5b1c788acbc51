import type { RequestHandler } from 'express';
import type { Logger } from '../logging/logger.js';
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
        method: req.method,
        path: req.originalUrl.split('?')[0],
        // nginx's 499 "client closed request" when the service hung up before any answer.
        status: res.headersSent ? res.statusCode : 499,
        durationMs: Number(process.hrtime.bigint() - started) / 1e6,
      };
      if (facts.route) line.route = facts.route;
      if (facts.requestedType) line.requestedType = facts.requestedType;
      if (facts.operationId) line.operationId = facts.operationId;
      if (correlationId) line.correlationId = correlationId;
      if (facts.error) line.error = facts.error;
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
