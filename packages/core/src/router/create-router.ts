import express, { type ErrorRequestHandler, type Router } from 'express';
import type { AppDefinition } from '../define/app.js';
import { sendError, toErrorResponse } from '../errors/error-response.js';
import { jsonLogger } from '../logging/logger.js';
import { createOAuthRouter } from '../oauth/index.js';
import { compileApp } from '../startup/compile-app.js';
import { requestFacts } from './handle.js';
import { requestLog } from './request-log.js';
import type { RouterOptions } from './router-options.js';
import { mountData } from './routes/data.js';
import { mountDatalist } from './routes/datalist.js';
import { mountDescriptor } from './routes/descriptor.js';
import { mountExecute } from './routes/execute.js';
import { mountResource } from './routes/resource.js';
import type { RouteKit } from './routes/route-kit.js';
import { mountSyncConfig } from './routes/sync-config.js';
import { mountValidate } from './routes/validate.js';
import { mountWebhookPreProcess, mountWebhooks } from './routes/webhooks.js';

const DEFAULT_BODY_LIMIT = '10mb';

/**
 * Turns an app definition into an Express router that speaks the app protocol. Checks the
 * whole definition first and throws an `AppDefinitionError` listing every problem. Paths the
 * protocol does not know fall through to the next handler, so the router can be mounted
 * inside an existing Express app.
 */
export function createRouter(
  definition: AppDefinition<any, any, any, any>,
  options: RouterOptions = {},
): Router {
  const app = compileApp(definition as AppDefinition);
  const logger = options.logger ?? jsonLogger();
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const router = express.Router();
  const kit: RouteKit = {
    router,
    app,
    options: { logger, replayWarningPages: options.replayWarningPages },
  };

  router.use(requestLog(logger));
  mountWebhookPreProcess(kit, bodyLimit);
  // The service does not always label its JSON; every other body is parsed as JSON.
  router.use(express.json({ limit: bodyLimit, type: () => true }));
  mountDescriptor(kit);
  mountValidate(kit);
  mountSyncConfig(kit);
  mountData(kit);
  mountDatalist(kit);
  mountWebhooks(kit);
  mountResource(kit);
  mountExecute(kit);
  const oauth = createOAuthRouter(definition.authentication);
  if (oauth) router.use(oauth);
  router.use(protocolErrors(logger));
  return router;
}

/** Errors raised outside handlers (malformed JSON, body too large) as JSON `{message}`. */
function protocolErrors(logger: ReturnType<typeof jsonLogger>): ErrorRequestHandler {
  return (error, _req, res, _next) => {
    const answer = toErrorResponse(error);
    requestFacts(res).error = answer.body.message;
    if (answer.unexpected)
      logger.error({ errorName: (error as Error)?.name }, 'unexpected error outside a handler');
    sendError(res, answer);
  };
}
