import type { Logger } from '../../logging/logger.js';
import type { PageKeys } from '../../paging/page-keys.js';
import type { CompiledApp } from '../../startup/compile-app.js';
import type { ProtocolRoutes } from '../route-table.js';

/** What every route module receives. */
export interface RouteKit {
  router: ProtocolRoutes;
  app: CompiledApp;
  options: { logger: Logger; pageKeys?: PageKeys; replayWarningPages?: number | false | undefined };
}
