// Which feeds the app syncs: the calendars shipped in `feeds/` (the embedded default), or the
// ones named by the FEED_URL environment variable. Both are read by `loadFeed`, one code path.
import { createHash } from 'node:crypto';
import { z } from 'zod';

/** One configured calendar feed. */
export interface FeedSource {
  /** Stable calendar id: the `id=` prefix of FEED_URL, else derived from the URL. */
  id: string;
  /** `https:`/`http:` for a published feed, `file:` for a file on this host. */
  url: URL;
}

/** The calendars shipped with the app: a community events calendar and public holidays. */
export function embeddedFeeds(): FeedSource[] {
  const dir = new URL('../feeds/', import.meta.url);
  return [
    { id: 'community', url: new URL('community.ics', dir) },
    { id: 'holidays', url: new URL('holidays.ics', dir) },
  ];
}

const feedId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, 'an id is 1-40 characters: a-z, 0-9, "-" and "_"');

/**
 * Parses FEED_URL: one or more feeds separated by commas or whitespace, each `URL` or `id=URL`,
 * e.g. `holidays=https://example.com/de.ics, https://example.com/team.ics`. Throws a readable
 * error for a malformed value, so a misconfigured deployment fails at start-up.
 */
export function parseFeedList(value: string): FeedSource[] {
  const entries = value.split(/[\s,]+/).filter((entry) => entry !== '');
  if (entries.length === 0) throw new Error('FEED_URL names no feed');
  const feeds = entries.map((entry) => {
    const match = /^([^=:/]+)=(.+)$/.exec(entry);
    const raw = match ? match[2]! : entry;
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new Error(`FEED_URL: "${raw}" is not a URL`);
    }
    if (!['https:', 'http:', 'file:'].includes(url.protocol)) {
      throw new Error(`FEED_URL: ${url.protocol} feeds are not supported (use https, http or file)`);
    }
    const id = match ? feedId.safeParse(match[1]) : undefined;
    if (id && !id.success)
      throw new Error(`FEED_URL: feed id "${match![1]}": ${id.error.issues[0]!.message}`);
    return { id: id?.data ?? derivedId(url), url };
  });
  const seen = new Set<string>();
  for (const feed of feeds) {
    if (seen.has(feed.id)) throw new Error(`FEED_URL: feed id "${feed.id}" appears twice`);
    seen.add(feed.id);
  }
  return feeds;
}

/** The feeds for this process: FEED_URL when set, else the embedded ones. */
export function feedsFromEnv(env: NodeJS.ProcessEnv = process.env): FeedSource[] {
  const value = env.FEED_URL?.trim();
  return value ? parseFeedList(value) : embeddedFeeds();
}

/** A short, stable id from the URL: the same URL gives the same calendar id on every replica. */
function derivedId(url: URL): string {
  return `feed-${createHash('sha256').update(url.href).digest('hex').slice(0, 10)}`;
}
