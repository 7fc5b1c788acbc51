import type { Logger } from '../logging/logger.js';

export interface RouterOptions {
  /** Where the one-line-per-request log and unexpected errors go; default JSON lines on stdout. */
  logger?: Logger;
  /** Largest accepted request body; default `'10mb'`. */
  bodyLimit?: string | number;
  /**
   * Warn (once per type and sync) when serving a data page replays more than this many pages'
   * worth of rows already sent; default 10, `false` turns it off. See docs/paging.md.
   */
  replayWarningPages?: number | false;
}
