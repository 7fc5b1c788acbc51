import express, { type NextFunction, type Request, type Response } from 'express';
import { requireToken } from '../auth/authenticate.js';
import { keepRawBody } from '../host/app-webhooks.js';
import { automationsRouter } from '../automations/automations-router.js';
import { commandsRouter } from '../commands/commands-router.js';
import { documentsRouter } from '../documents/documents-router.js';
import { WorkspaceError } from '../errors.js';
import { filesRouter } from '../files/files-router.js';
import { pageRouter } from '../page/page-router.js';
import { type AddressLimits, pageLimit, unknownTokenLimit } from '../rate-limit/address-limits.js';
import { rateLimit } from '../rate-limit/rate-limit-middleware.js';
import { tokensRouter } from '../tokens/tokens-router.js';
import { usersRouter } from '../users/users-router.js';
import { viewsRouter } from '../views/views-router.js';
import { webhooksRouter } from '../webhooks/webhooks-router.js';
import type { Workspace } from '../workspace.js';

export interface AppOptions {
  /** requests per second per token; 0 turns the limit off */
  rateLimit: number;
  /** limits by client address for /ui and for unknown tokens (rate-limit/address-limits.ts) */
  addressLimits: AddressLimits;
  log?: (message: string, error?: unknown) => void;
  /** more routes (the app host), mounted after the data API's own */
  router?: express.Router;
}

/**
 * Options for the HTTP server the app runs in. A request's body is read from its connection while
 * its token is looked up (up to this much, a bulk write's batch), rather than left in the
 * connection until the lookup answers: the lookup's round trip no longer comes before the body's
 * reading in every request.
 */
export const SERVER_OPTIONS = { highWaterMark: 1 << 20 } as const;

/** The data API over HTTP: authentication and the rate limit first, then one router per area. */
export function createApp(workspace: Workspace, options: AppOptions): express.Express {
  const log = options.log ?? ((m, e) => console.error(m, e ?? ''));
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.get('/', (_req, res) => {
    res.json({ name: 'weft workspace', api: '/api' });
  });
  app.use('/ui', pageLimit(options.addressLimits));
  app.use(pageRouter(workspace));
  app.use('/api', unknownTokenLimit(options.addressLimits));
  app.use('/api', requireToken(workspace.driver));
  app.use('/api', rateLimit(workspace.driver, options.rateLimit));
  app.use(express.json({ limit: '64mb', verify: keepRawBody }));
  app.use(commandsRouter(workspace));
  app.use(documentsRouter(workspace.driver));
  app.use(filesRouter(workspace.driver));
  app.use(tokensRouter(workspace.driver));
  app.use(usersRouter(workspace));
  app.use(viewsRouter(workspace.driver));
  app.use(webhooksRouter(workspace.driver));
  app.use(automationsRouter(workspace.driver));
  if (options.router) app.use(options.router);
  app.use((req: Request, res: Response) => {
    res.status(404).json({ message: `No route ${req.method} ${req.path}`, code: 'not-found' });
  });
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (error instanceof WorkspaceError) {
      res.status(error.status).json({ message: error.message, code: error.code });
      return;
    }
    const e = error as { type?: string; status?: number };
    if (e?.type === 'entity.parse.failed') {
      if (req.path === '/api/views/json-rpc') {
        res.json({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
        return;
      }
      res.status(400).json({ message: 'The body is not valid JSON', code: 'bad-request' });
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
