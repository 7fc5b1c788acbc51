import { randomBytes } from 'node:crypto';
import type { Logger } from '../logging/logger.js';

/** Keys of the page-state signature: `sign` signs, every key of `verify` is accepted. */
export interface PageKeys {
  sign: Buffer;
  verify: readonly Buffer[];
}

let processKey: Buffer | undefined;
let warned = false;

/**
 * The page keys of a router: the given ones, else `WEFT_PAGE_KEYS` (comma-separated, the first
 * signs), else one random key for this process, with a warning once: cursors then resume only
 * on the process that issued them, which is right for one process and wrong for replicas.
 */
export function resolvePageKeys(explicit: readonly string[] | undefined, logger: Logger): PageKeys {
  const given = (explicit ?? (process.env.WEFT_PAGE_KEYS ?? '').split(','))
    .map((key) => key.trim())
    .filter((key) => key.length > 0);
  if (given.length > 0) {
    const keys = given.map((key) => Buffer.from(key, 'utf8'));
    return { sign: keys[0]!, verify: keys };
  }
  processKey ??= randomBytes(32);
  if (!warned) {
    warned = true;
    logger.warn(
      { setting: 'WEFT_PAGE_KEYS' },
      'WEFT_PAGE_KEYS is not set: page cursors are signed with a random key of this process and cannot be resumed by another replica',
    );
  }
  return { sign: processKey, verify: [processKey] };
}
