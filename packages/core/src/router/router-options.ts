import type { Logger } from '../logging/logger.js';
import type { AccessOptions } from '../security/access.js';

export interface RouterOptions {
  /** Where the one-line-per-request log and unexpected errors go; default JSON lines on stdout. */
  logger?: Logger;
  /**
   * Largest accepted request body on every route but webhook payloads and resources; default
   * `'256kb'` (accounts, filters and cursors are small).
   */
  bodyLimit?: string | number;
  /**
   * Warn (once per type and sync) when serving a data page replays more than this many pages'
   * worth of rows already sent; default 10, `false` turns it off. See docs/paging.md.
   */
  replayWarningPages?: number | false;
  /** Largest accepted body of the webhook routes and `resource`; default `'10mb'`. */
  largeBodyLimit?: string | number;
  /** Deepest accepted nesting of JSON arrays and objects in a request body; default 64. */
  maxJsonDepth?: number;
  /**
   * Keys that sign and verify `nextPageConfig` (HMAC-SHA256): the first signs, every one
   * verifies, so a key can be rotated in. Default: `WEFT_PAGE_KEYS` (comma-separated); without
   * it, a random key for this process (fine for one process; replicas must share a key).
   */
  pageKeys?: readonly string[];
  /**
   * Accept requests only from given addresses and/or with a shared secret header. Default read
   * from `WEFT_ALLOW_FROM`, `WEFT_TRUSTED_PROXIES`, `WEFT_SHARED_SECRET`, `WEFT_SHARED_SECRET_HEADER`.
   */
  access?: AccessOptions;
}
