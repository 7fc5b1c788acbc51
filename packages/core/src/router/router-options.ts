import type { Logger } from '../logging/logger.js';

export interface RouterOptions {
  /** Where the one-line-per-request log and unexpected errors go; default JSON lines on stdout. */
  logger?: Logger;
  /** Largest accepted request body; default `'10mb'`. */
  bodyLimit?: string | number;
}
