import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Request, RequestHandler, Response } from 'express';
import type { z } from 'zod';
import { type ErrorResponse, sendError, toErrorResponse } from '../errors/error-response.js';
import { clip } from '../logging/clip.js';
import type { Logger } from '../logging/logger.js';
import { redactingLogger } from '../logging/redacting-logger.js';
import { collectSecrets, redact } from '../logging/redact.js';
import type { CompiledApp } from '../startup/compile-app.js';
import { parseBody } from './parse-body.js';
import { type RequestScope, createRequestScope } from './request-context.js';
import { sendJson } from './send-json.js';
import type { RouterOptions } from './router-options.js';

const MAX_MESSAGE = 1_000;

/** A handler's answer: a JSON body, no content (204), or a stream. */
export const NO_CONTENT: unique symbol = Symbol('weft.noContent');
export type RouteResult = unknown | typeof NO_CONTENT | StreamAnswer;

const STREAM: unique symbol = Symbol('weft.stream');

/** A body piped to the service after the handler finished; not bound by the handler time limit. */
export interface StreamAnswer {
  readonly [STREAM]: true;
  readonly source: Readable;
  readonly headers: Record<string, string>;
  /** Sent as an attachment `Content-Disposition`. */
  readonly fileName: string | undefined;
}

export function streamAnswer(
  source: Readable,
  headers: Record<string, string>,
  fileName?: string,
): StreamAnswer {
  return { [STREAM]: true, source, headers, fileName };
}

function isStreamAnswer(value: unknown): value is StreamAnswer {
  return typeof value === 'object' && value !== null && STREAM in value;
}

/** What the request log line reports about a request beyond method, path and status. */
export interface RequestFacts {
  route?: string;
  operationId?: string;
  requestedType?: string;
  error?: string;
}

export function requestFacts(res: Response): RequestFacts {
  res.locals.weft ??= {};
  return res.locals.weft as RequestFacts;
}

/**
 * Wraps a protocol handler: validates the body with its zod schema, runs the handler under
 * the time limit with an abort signal, and answers JSON or the protocol's error body. Errors
 * are redacted with the account's secrets before they are sent or logged.
 */
export function handle<S extends z.ZodType>(
  app: CompiledApp,
  options: Required<Pick<RouterOptions, 'logger'>>,
  route: string,
  schema: S | undefined,
  run: (
    body: z.infer<S>,
    scope: RequestScope,
    req: Request,
    res: Response,
  ) => Promise<RouteResult> | RouteResult,
): RequestHandler {
  return async (req, res) => {
    const facts = requestFacts(res);
    facts.route = route;
    // Every logger a handler can reach (ctx.log, and the upstream client it is handed to)
    // redacts this request's secrets in every encoding. They are read before the handler runs
    // (it may be handed parts of the body and change them); the logger is built on first use.
    const secrets = collectSecrets(req.body, app.secretKeys);
    const log = lazyRedactingLogger(options.logger, secrets, app.secretKeys);
    const scope = createRequestScope(req, res, log, app.timeoutMs);
    try {
      const body = schema ? parseBody(schema, req.body) : (undefined as z.infer<S>);
      const result = await scope.limit(Promise.resolve(run(body, scope, req, res)));
      if (res.headersSent) return;
      if (result === NO_CONTENT) res.status(204).end();
      else if (isStreamAnswer(result)) {
        // The time limit covers producing the answer, not a slow download of a large file.
        scope.dispose();
        res.status(200).set(result.headers);
        if (result.fileName) res.attachment(result.fileName);
        // Once headers are out an error can only cut the stream; pipeline destroys both ends.
        await pipeline(result.source, res);
      } else if (result === undefined) res.json(result);
      else sendJson(res, result);
    } catch (error) {
      const answer = toErrorResponse(error, secrets);
      // A message may echo user input (an unknown 9 MB type name): never a 9 MB answer.
      answer.body.message = clip(answer.body.message, MAX_MESSAGE);
      reportError(options, facts, answer, error, secrets);
      sendError(res, answer);
    } finally {
      scope.dispose();
    }
  };
}

/** The redacting logger of a request, built on its first call. */
function lazyRedactingLogger(
  base: Logger,
  secrets: readonly string[],
  secretKeys: readonly string[],
): Logger {
  // Most requests never log: building the redactor (a Set and four closures) waits for the
  // first call. Methods that close over `built`, so `const { info } = ctx.log` still works.
  let built: Logger | undefined;
  return {
    info(fields, message) {
      built ??= redactingLogger(base, secrets, secretKeys);
      built.info(fields, message);
    },
    warn(fields, message) {
      built ??= redactingLogger(base, secrets, secretKeys);
      built.warn(fields, message);
    },
    error(fields, message) {
      built ??= redactingLogger(base, secrets, secretKeys);
      built.error(fields, message);
    },
  };
}

function reportError(
  options: Required<Pick<RouterOptions, 'logger'>>,
  facts: RequestFacts,
  answer: ErrorResponse,
  error: unknown,
  secrets: readonly string[],
): void {
  facts.error = answer.body.message;
  if (answer.unexpected) {
    // The stack goes to the app's own log, never to the service.
    const detail =
      error instanceof Error
        ? {
            errorName: clip(error.name, 100),
            // Redact before the final cut, so a secret is never left half-visible at the cut.
            stack: clip(redact(clip(error.stack ?? error.message, 65_536), secrets), 4_000),
          }
        : { thrown: clip(redact(clip(String(error), 65_536), secrets), 1_000) };
    options.logger.error({ route: facts.route, ...detail }, 'unexpected error in handler');
  }
}
