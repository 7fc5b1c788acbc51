import type { Response } from 'express';
import type { Logger } from '../logging/logger.js';
import type { Page } from './cut-page.js';
import type { PageState } from './page-state.js';
import { DEFAULT_REPLAY_WARNING_PAGES, REPLAYED_ROWS_HEADER, warnOnReplay } from './replay-warning.js';

/** What was served, for the replay header and warning. */
export interface ServedPage {
  type: { id: string; pageSize: number };
  /** The state the page was served from. */
  state: PageState;
  page: Page;
  log: Logger;
  /** The router's `replayWarningPages`; undefined means the default. */
  replayWarningPages: number | false | undefined;
  operationId: string | undefined;
}

/**
 * Sends a data answer: the replayed-rows header, the replay warning when this page crosses
 * the threshold, and the body as JSON. A page is large (100 kB and more) and sent once: it is
 * serialised and written directly, without `res.json`'s general-purpose work per answer.
 */
export function sendPage(res: Response, served: ServedPage, body: unknown): void {
  const { page, type } = served;
  warnOnReplay(served.log, {
    type: type.id,
    pageSize: type.pageSize,
    skip: served.state.skip,
    replayed: page.replayed,
    thresholdPages: served.replayWarningPages ?? DEFAULT_REPLAY_WARNING_PAGES,
    operationId: served.operationId,
  });
  const bytes = Buffer.from(JSON.stringify(body));
  res.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': bytes.length,
    [REPLAYED_ROWS_HEADER]: String(page.replayed),
  });
  res.end(bytes);
}
