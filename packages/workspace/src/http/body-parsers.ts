import { checkJsonDepth, DEFAULT_MAX_JSON_DEPTH, jsonBody as coreJsonBody } from '@weft/core/hardening';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';

// Bodies are read only by the routes that take one, each with a limit of its own, and every JSON
// body passes core's raw-bytes depth check (checkJsonDepth) before it is parsed: a hostile
// `[[[[...` never reaches JSON.parse, and no route reads more than it needs (see docs/security.md,
// "Bodies, connections and headers").

export const KB = 1024;
export const MB = 1024 * KB;

/**
 * How deep the data API's bodies may nest. More than core's 64: a query may nest 32 levels of
 * sub-selects (3 JSON levels each) inside batches nested 8 deep, and the API refuses those itself
 * with a precise error; 256 still keeps a hostile `[[[[...` from JSON.parse and every validator.
 */
export const MAX_JSON_DEPTH = 256;

/** Limit of the bodies of app webhook events (third parties' requests to /hooks/sources/:id). */
export const EVENT_BODY_LIMIT = 4 * MB;
/** An event's payload goes on to an app, which takes core's depth (its wrapper adds one level). */
export const EVENT_JSON_DEPTH = DEFAULT_MAX_JSON_DEPTH - 1;

/** A body refused for its size: the error handler answers it 413 (the shape body-parser gives). */
export class BodyTooLargeError extends Error {
  readonly status = 413;
  readonly expose = true;
  readonly type = 'entity.too.large';
  constructor(readonly limit: number) {
    super(`The request body is larger than ${limit} bytes`);
  }
}

const depthCheck = (maxDepth: number) => (_req: unknown, _res: unknown, buffer: Buffer) =>
  checkJsonDepth(buffer, maxDepth);

/**
 * Refuses a body whose declared length is over the limit before any of it is read. (body-parser
 * would refuse it too, but only after reading the whole body off the connection.)
 */
function declaredWithin(limit: number, parse: RequestHandler): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const declared = Number(req.headers['content-length']);
    if (declared > limit) return next(new BodyTooLargeError(limit));
    return parse(req, res, next);
  };
}

/**
 * A JSON body (`application/json`) of at most `limit` bytes, nested at most MAX_JSON_DEPTH deep;
 * a body with another label is left unread. Core's reader: body-parser's answers, with a plain
 * declared-length body read straight into one `JSON.parse`.
 */
export function jsonBody(limit: number): RequestHandler {
  return declaredWithin(limit, coreJsonBody({ limit, maxDepth: MAX_JSON_DEPTH, jsonOnly: true }));
}

/**
 * The raw bytes of an app webhook event, of any content type (the app checks signatures over the
 * exact bytes). The workspace reads such a body as JSON when it parses (payloadOf in
 * host/app-webhooks.ts) whatever its label, so every event body gets the depth check.
 */
export const eventBody: RequestHandler = declaredWithin(
  EVENT_BODY_LIMIT,
  express.raw({ type: () => true, limit: EVENT_BODY_LIMIT, verify: depthCheck(EVENT_JSON_DEPTH) }),
);
