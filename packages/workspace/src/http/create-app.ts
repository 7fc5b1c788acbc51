import express, { type NextFunction, type Request, type Response } from 'express';
import { requireToken } from '../auth/authenticate.js';
import { automationsRouter } from '../automations/automations-router.js';
import { commandsRouter } from '../commands/commands-router.js';
import { documentsRouter } from '../documents/documents-router.js';
import { WorkspaceError } from '../errors.js';
import { filesRouter } from '../files/files-router.js';
import { pageRouter } from '../page/page-router.js';
import { type AddressLimits, pageLimit, unknownTokenLimit } from '../rate-limit/address-limits.js';
import { rateLimit } from '../rate-limit/rate-limit-middleware.js';
import { schemaRouter } from '../schema/schema-router.js';
import { tokensRouter } from '../tokens/tokens-router.js';
import { usersRouter } from '../users/users-router.js';
import { viewsRouter } from '../views/views-router.js';
import { webhooksRouter } from '../webhooks/webhooks-router.js';
import type { Workspace } from '../workspace.js';
import { mountBodyParsers } from './body-routes.js';
import { namespaceBoundary } from './namespace-boundary.js';
import { closeIfBodyUnread } from './unread-body.js';

export interface AppOptions {
  /** requests per second per token; 0 turns the limit off */
  rateLimit: number;
  /** limits by client address for /ui and for unknown tokens (rate-limit/address-limits.ts) */
  addressLimits: AddressLimits;
  log?: (message: string, error?: unknown) => void;
  /** more routes (the app host), mounted after the data API's own; they parse their own bodies */
  router?: express.Router;
  /** the largest file an upload may hold, in bytes (default MAX_FILE_BYTES) */
  maxFileBytes?: number;
}

/**
 * The data API over HTTP: authentication and the rate limit first, then the body (only on routes
 * that take one, each with its own limit: http/body-routes.ts), then one router per area.
 */
export function createApp(workspace: Workspace, options: AppOptions): express.Express {
  const log = options.log ?? ((m, e) => console.error(m, e ?? ''));
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use((_req, res, next) => {
    // No browser may guess a type other than the one an answer declares (a file, a JSON string).
    res.setHeader('X-Content-Type-Options', 'nosniff');
    next();
  });
  app.get('/', (_req, res) => {
    res.json({ name: 'weft workspace', api: '/api' });
  });
  app.use('/ui', pageLimit(options.addressLimits));
  app.use(pageRouter(workspace));
  app.use('/api', unknownTokenLimit(options.addressLimits));
  app.use('/api', requireToken(workspace.driver));
  app.use('/api', rateLimit(workspace.driver, options.rateLimit));
  mountBodyParsers(app);
  const boundary = namespaceBoundary(workspace.namespace, workspace.driver);
  if (boundary) app.use('/api', boundary);
  app.use(commandsRouter(workspace));
  app.use(schemaRouter(workspace.driver));
  app.use(documentsRouter(workspace.driver));
  app.use(
    filesRouter(
      workspace.driver,
      workspace.outbound,
      options.maxFileBytes !== undefined ? { maxFileBytes: options.maxFileBytes } : {},
    ),
  );
  app.use(tokensRouter(workspace.driver));
  app.use(usersRouter(workspace));
  app.use(viewsRouter(workspace.driver));
  app.use(webhooksRouter(workspace.driver));
  app.use(automationsRouter(workspace.driver));
  if (options.router) app.use(options.router);
  app.use((req: Request, res: Response) => {
    closeIfBodyUnread(req, res);
    res.status(404).json({ message: `No route ${req.method} ${req.path}`, code: 'not-found' });
  });
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    closeIfBodyUnread(req, res);
    if (error instanceof WorkspaceError) {
      res.status(error.status).json({ message: error.message, code: error.code });
      return;
    }
    const e = error as { type?: string; status?: number; limit?: number; message?: string };
    if (e?.type === 'entity.parse.failed' || e?.type === 'entity.too.deep') {
      // core's depth check names the depth it allows: "Request body is nested deeper than N levels"
      const deep = e.type === 'entity.too.deep' ? String(e.message) : undefined;
      if (req.path === '/api/views/json-rpc') {
        const message = deep ? `Parse error: ${deep}` : 'Parse error';
        res.json({ jsonrpc: '2.0', id: null, error: { code: -32700, message } });
        return;
      }
      res.status(400).json({ message: deep ?? 'The body is not valid JSON', code: 'bad-request' });
      return;
    }
    if (e?.type === 'entity.too.large') {
      const most = typeof e.limit === 'number' ? ` (at most ${e.limit} bytes here)` : '';
      res.status(413).json({ message: `The request body is too large${most}`, code: 'bad-request' });
      return;
    }
    if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500) {
      res.status(e.status).json({ message: 'The request body was refused', code: 'bad-request' });
      return;
    }
    log(`${req.method} ${req.path} failed`, error);
    res.status(500).json({ message: 'Internal error', code: 'internal' });
  });
  return app;
}
