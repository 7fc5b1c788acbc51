import type { Router } from 'express';
import type { Logger } from '../../logging/logger.js';
import type { PageKeys } from '../../paging/page-keys.js';
import type { CompiledApp } from '../../startup/compile-app.js';

/** What every route module receives. */
export interface RouteKit {
  router: Router;
  app: CompiledApp;
  options: { logger: Logger; pageKeys?: PageKeys; replayWarningPages?: number | false | undefined };
}
