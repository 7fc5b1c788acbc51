import { plural } from '../util.js';

/** Core warns from this many pages' worth of replayed rows; the kit uses the same threshold. */
export const REPLAY_PAGES = 10;
/** Page times are compared only for syncs of at least this many pages. */
export const TIMING_MIN_PAGES = 20;
/** Pages per window compared (at most): the first pages after page 1, and the last pages. */
const TIMING_WINDOW = 10;
/** The last pages must take this many times as long as the first ones... */
export const TIMING_RATIO = 3;
/** ...and this many milliseconds more, so that noise on tiny, fast pages does not warn. */
export const TIMING_FLOOR_MS = 10;

const FIX =
  'Fix: `yield resume(...)` after each upstream page, with the page token or offset to continue from, so each page starts where the previous one ended';

export interface ReplayVerdict {
  status: 'pass' | 'warn' | 'skip';
  reason: string;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * `data.replay` for one type's full sync: a page that makes the app produce every earlier page
 * again costs a sync the square of its rows. Core apps say so in `X-Weft-Replayed-Rows`; for
 * any app the page time growing with the page number shows it.
 *
 * @param typeId the type, named in a warning
 * @param pageMs time to answer each page, in page order
 * @param replayed the header's value per page (undefined when absent)
 * @param pageSize the largest page's row count (a page's worth)
 */
export function judgeReplay(
  typeId: string,
  pageMs: readonly number[],
  replayed: readonly (number | undefined)[],
  pageSize: number,
): ReplayVerdict {
  const warnings: string[] = [];
  const notes: string[] = [];
  const reported = replayed.filter((n): n is number => n !== undefined);
  if (reported.length > 0) {
    let most = 0;
    let at = 0;
    replayed.forEach((n, i) => {
      if (n !== undefined && n > most) {
        most = n;
        at = i + 1;
      }
    });
    if (pageSize > 0 && most >= REPLAY_PAGES * pageSize) {
      warnings.push(
        `page ${at} replayed ${most.toLocaleString('en-US')} rows already sent (X-Weft-Replayed-Rows, ${Math.floor(most / pageSize)} pages' worth): the data handler yields no resume() point for that long, so each page restarts it and drops what earlier pages sent, and a sync costs the square of its rows`,
      );
    } else notes.push(`at most ${plural(most, 'row')} replayed per page (X-Weft-Replayed-Rows)`);
  }
  if (pageMs.length >= TIMING_MIN_PAGES) {
    const w = Math.min(TIMING_WINDOW, Math.floor((pageMs.length - 1) / 4));
    // Page 1 is left out: it pays for the app's and the kit's warm-up.
    const first = median(pageMs.slice(1, 1 + w));
    const last = median(pageMs.slice(-w));
    const span = `median ${first.toFixed(1)} ms over pages 2-${1 + w}, ${last.toFixed(1)} ms over pages ${pageMs.length - w + 1}-${pageMs.length}`;
    if (last >= TIMING_RATIO * first && last - first >= TIMING_FLOOR_MS) {
      warnings.push(
        `page time grows with the page number (${span}): each page seems to re-read the pages before it (no resume() point, or an offset the upstream walks from the start)`,
      );
    } else notes.push(`page time flat (${span})`);
  }
  if (warnings.length > 0)
    return { status: 'warn', reason: `type '${typeId}': ${warnings.join('; ')}. ${FIX}.` };
  if (notes.length > 0) return { status: 'pass', reason: notes.join('; ') };
  return {
    status: 'skip',
    reason: `fewer than ${TIMING_MIN_PAGES} pages to compare page times, and no X-Weft-Replayed-Rows header`,
  };
}
