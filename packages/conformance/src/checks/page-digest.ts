import { createHash } from 'node:crypto';
import { isPlainObject, stableStringify } from '../util.js';

/**
 * What the kit keeps of a page to prove later that its `nextPageConfig` gives the same rows again:
 * the config and two hashes, never the rows (a long sync must not be held in memory twice).
 */
export interface PageDigest {
  /** The `nextPageConfig` that was sent for this page. */
  config: unknown;
  /** Page number in the first sync (2 for the first `nextPageConfig`). */
  page: number;
  count: number;
  /** Hash of the page's row ids, order ignored. */
  ids: string;
  /** Hash of the page's rows as canonical JSON (key order ignored), row order ignored. */
  rows: string;
}

function hashLines(lines: string[]): string {
  const hash = createHash('sha256');
  for (const line of lines.sort()) hash.update(line).update('\n');
  return hash.digest('hex');
}

export function pageDigest(config: unknown, items: readonly unknown[], page: number): PageDigest {
  const ids = items.map((item) => (isPlainObject(item) ? String(item.id) : stableStringify(item)));
  return {
    config,
    page,
    count: items.length,
    ids: hashLines(ids),
    rows: hashLines(items.map(stableStringify)),
  };
}
