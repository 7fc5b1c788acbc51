import express, { type ErrorRequestHandler, type RequestHandler, type Router } from 'express';
import type { AppDefinition } from '../define/app.js';
import { sendError, toErrorResponse } from '../errors/error-response.js';
import { clip } from '../logging/clip.js';
import { jsonLogger, silentLogger } from '../logging/logger.js';
import { collectSecrets } from '../logging/redact.js';
import { createOAuthRouter } from '../oauth/index.js';
import { resolvePageKeys } from '../paging/page-keys.js';
import { accessFromEnv, accessGuard } from '../security/access.js';
import { type CompiledApp, compileApp } from '../startup/compile-app.js';
import {
  DEFAULT_BODY_LIMIT,
  DEFAULT_LARGE_BODY_LIMIT,
  DEFAULT_MAX_JSON_DEPTH,
  jsonBodies,
} from './body-parsers.js';
import { dispatchDirectly } from './direct-dispatch.js';
import { requestFacts } from './handle.js';
import { requestLog } from './request-log.js';
import { RouteTable } from './route-table.js';
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

/** Longest error message sent or logged; user values inside are clipped further by the routes. */
const MAX_MESSAGE = 1_000;

/**
 * Turns an app definition into an Express router that speaks the app protocol. Checks the
 * whole definition first and throws an `AppDefinitionError` listing every problem. Paths the
 * protocol does not know fall through to the next handler, so the router can be mounted
 * inside an existing Express app. Route matching is strict (case-sensitive, no trailing slash),
 * so proxy rules on paths mean what they say.
 */
export function createRouter(
  definition: AppDefinition<any, any, any, any>,
  options: RouterOptions = {},
): Router {
  return mountProtocol(express.Router({ caseSensitive: true, strict: true }), definition, options);
}

/**
 * Adds the protocol's routes to `router`. `createServer` adds them to the application's own
 * router (case-sensitive and strict like createRouter's): a router nested in it would cost every
 * request a second pass of Express's dispatch.
 */
export function mountProtocol(
  router: Router,
  definition: AppDefinition<any, any, any, any>,
  options: RouterOptions = {},
): Router {
  const app = compileApp(definition as AppDefinition);
  const logger = options.logger ?? jsonLogger();
  const pageKeys = resolvePageKeys(options.pageKeys, logger);
  const routes = new RouteTable();
  const kit: RouteKit = {
    router: routes,
    app,
    options: { logger, pageKeys, replayWarningPages: options.replayWarningPages },
  };

  // The middleware every protocol request passes before its route, in order.
  const front: RequestHandler[] = [];
  // Nothing to time and no line to build for a logger that discards them.
  if (logger !== silentLogger) front.push(requestLog(logger));
  front.push(securityHeaders);
  const guard = accessGuard(options.access ?? accessFromEnv());
  if (guard) front.push(guard);
  for (const middleware of front) router.use(middleware);
  // Before the JSON parser: its signatures are over the exact bytes received.
  mountWebhookPreProcess(kit, router, options.largeBodyLimit ?? DEFAULT_LARGE_BODY_LIMIT);
  const bodies = jsonBodies({
    limit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    largeLimit: options.largeBodyLimit ?? DEFAULT_LARGE_BODY_LIMIT,
    maxDepth: options.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH,
  });
  front.push(bodies);
  router.use(bodies);
  mountDescriptor(kit);
  mountValidate(kit);
  mountSyncConfig(kit);
  mountData(kit);
  mountDatalist(kit);
  mountWebhooks(kit);
  mountResource(kit);
  mountExecute(kit);
  router.use(routes.middleware());
  const oauth = createOAuthRouter(definition.authentication);
  // Before the OAuth router: a sub-router would answer OPTIONS itself, in plain text.
  router.use(wrongMethod(routes, [router, ...(oauth ? [oauth] : [])]));
  if (oauth) router.use(oauth);
  const errors = protocolErrors(app, logger);
  router.use(errors);
  dispatchDirectly(router, routes, front, errors);
  return router;
}

/**
 * `nosniff` on every answer; `no-store` on every answer to a POST or DELETE, since those may
 * carry tokens (`access_token`, `/validate` with a refreshed token) or account data.
 */
const securityHeaders: RequestHandler = (req, res, next) => {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (req.method !== 'GET' && req.method !== 'HEAD') res.setHeader('Cache-Control', 'no-store');
  next();
};

/**
 * A protocol path asked with a method it does not take (OPTIONS included): a JSON 405 with
 * `Allow`, instead of Express's plain-text OPTIONS answer or a misleading 404. A request with
 * the right method passes on (to the OAuth router mounted after this).
 */
function wrongMethod(routes: RouteTable, routers: Router[]): RequestHandler {
  let allowed: Map<string, string[]> | undefined;
  const collect = () => {
    const map = routes.methods();
    for (const r of routers) {
      for (const layer of r.stack as Array<{ route?: { path: unknown; methods: Record<string, boolean> } }>) {
        if (!layer.route || typeof layer.route.path !== 'string') continue;
        const methods = Object.keys(layer.route.methods)
          .filter((m) => m !== '_all')
          .map((m) => m.toUpperCase());
        map.set(layer.route.path, [...new Set([...(map.get(layer.route.path) ?? []), ...methods])]);
      }
    }
    return map;
  };
  return (req, res, next) => {
    allowed ??= collect();
    const methods = allowed.get(req.path);
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    if (!methods || methods.includes(method)) {
      next();
      return;
    }
    res.setHeader('Allow', methods.join(', '));
    res
      .status(405)
      .json({ message: `${clip(req.method, 20)} is not allowed here; use ${methods.join(' or ')}` });
  };
}

/** Errors raised outside handlers (malformed JSON, body too large, OAuth steps) as JSON `{message}`. */
function protocolErrors(app: CompiledApp, logger: ReturnType<typeof jsonLogger>): ErrorRequestHandler {
  return (error, req, res, _next) => {
    const answer = toErrorResponse(error, collectSecrets(req.body, app.secretKeys));
    answer.body.message = clip(answer.body.message, MAX_MESSAGE);
    requestFacts(res).error = answer.body.message;
    if (answer.unexpected)
      logger.error({ errorName: clip((error as Error)?.name, 100) }, 'unexpected error outside a handler');
    sendError(res, answer);
  };
}
