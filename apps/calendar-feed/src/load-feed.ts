// Reads a feed's text: `file:` feeds from disk (the embedded default), http(s) feeds with core's
// `createUpstream` (retries on 5xx and network trouble, `tryLater` when they persist, no secret
// in messages). Then parses it; a feed that is not iCalendar is a 502 naming the feed.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { createUpstream, type Logger, WeftError } from '@weft/core';
import type { FeedSource } from './feeds.js';
import {
  type ExpansionWindow,
  FeedFormatError,
  type ParsedCalendar,
  parseCalendar,
} from './parse-calendar.js';

/** Largest feed read, in bytes: a calendar is rarely over a few MB; this bounds memory per request. */
export const MAX_FEED_BYTES = 20 * 1024 * 1024;

export interface LoadOptions {
  signal: AbortSignal;
  log?: Logger;
  /** Time limit of one fetch attempt in ms; default 15,000. */
  timeoutMs?: number;
  /** Base of the retry backoff in ms; default core's 250. */
  backoffMs?: number;
}

export async function loadFeedText(feed: FeedSource, options: LoadOptions): Promise<string> {
  if (feed.url.protocol === 'file:') {
    const text = await readFile(fileURLToPath(feed.url), { encoding: 'utf8', signal: options.signal });
    return checkSize(feed, Buffer.byteLength(text), text);
  }
  const api = createUpstream({
    baseUrl: feed.url.href,
    signal: options.signal,
    headers: { accept: 'text/calendar, text/plain;q=0.5, */*;q=0.1' },
    ...(options.log ? { log: options.log } : {}),
    timeoutMs: options.timeoutMs ?? 15_000,
    ...(options.backoffMs === undefined ? {} : { backoff: options.backoffMs }),
    // Private calendar links carry their secret in the path or query (e.g. `/private-<key>/basic.ics`).
    secrets: [feed.url.pathname, feed.url.search].filter((part) => part.length >= 4),
  });
  const response = await api.get('');
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > MAX_FEED_BYTES) {
    await response.body?.cancel();
    checkSize(feed, declared, '');
  }
  const text = await response.text();
  return checkSize(feed, Buffer.byteLength(text), text);
}

export async function loadCalendar(
  feed: FeedSource,
  window: ExpansionWindow,
  options: LoadOptions,
): Promise<ParsedCalendar> {
  const text = await loadFeedText(feed, options);
  try {
    return parseCalendar(text, window);
  } catch (error) {
    if (error instanceof FeedFormatError) {
      throw new WeftError(`Calendar feed "${feed.id}" is ${error.message}`, { status: 502, cause: error });
    }
    throw error;
  }
}

function checkSize(feed: FeedSource, bytes: number, text: string): string {
  if (bytes > MAX_FEED_BYTES) {
    throw new WeftError(
      `Calendar feed "${feed.id}" is larger than ${MAX_FEED_BYTES / 1024 / 1024} MB; split it into several feeds`,
      { status: 502 },
    );
  }
  return text;
}
