import type { Logger } from '../logging/logger.js';

/**
 * Response header on every data answer: how many rows the handler yielded again, and core
 * dropped, to serve this page (rows earlier pages had sent). 0 when the handler resumed close
 * to where the page starts. A checker can read it to spot handlers that replay their stream.
 */
export const REPLAYED_ROWS_HEADER = 'X-Weft-Replayed-Rows';

/** Default warning threshold: ten pages' worth of replayed rows. */
export const DEFAULT_REPLAY_WARNING_PAGES = 10;

export interface ReplayFacts {
  type: string;
  pageSize: number;
  /** The skip count the page state carried: rows since the last resume point that were sent. */
  skip: number;
  /** Rows the handler actually yielded again and core dropped for this page. */
  replayed: number;
  /** Pages' worth of replayed rows that trigger the warning; false turns it off. */
  thresholdPages: number | false;
  operationId: string | undefined;
}

/**
 * True on the one page of a stretch without resume points where the skip count first reaches
 * the threshold. Within such a stretch every page sent `pageSize` rows, so the page before
 * this one skipped `pageSize` fewer: the skip crosses the threshold on exactly one page,
 * known from the request alone (nothing is kept between requests). A handler that never
 * yields `resume()` is one stretch, so its sync warns once.
 */
export function crossesReplayThreshold(facts: Pick<ReplayFacts, 'pageSize' | 'skip' | 'thresholdPages'>) {
  if (facts.thresholdPages === false) return false;
  // At least one page: replaying less than a page is what a resume point mid-page costs.
  const threshold = Math.ceil(Math.max(1, facts.thresholdPages) * facts.pageSize);
  return facts.skip >= threshold && facts.skip - facts.pageSize < threshold;
}

/** Logs the replay warning when this page is the one that crosses the threshold. */
export function warnOnReplay(log: Logger, facts: ReplayFacts): void {
  if (!crossesReplayThreshold(facts)) return;
  const fields: Record<string, unknown> = {
    requestedType: facts.type,
    replayedRows: facts.replayed,
    pageSize: facts.pageSize,
  };
  if (facts.operationId) fields.operationId = facts.operationId;
  log.warn(
    fields,
    `type "${facts.type}" replayed ${facts.replayed} rows to serve one page: its data handler ` +
      'yields no resume() point for that long, so each page restarts it from the last one and ' +
      'drops what earlier pages sent; the cost of a sync grows with the square of its rows. ' +
      'Fix: `yield resume(...)` after each upstream page, with the page token or offset to ' +
      'continue from.',
  );
}
