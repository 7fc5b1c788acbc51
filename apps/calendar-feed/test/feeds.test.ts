import { describe, expect, it } from 'vitest';
import { embeddedFeeds, feedsFromEnv, parseFeedList } from '../src/feeds.js';

describe('calendar-feed: FEED_URL', () => {
  it('reads one URL, with an id derived from it that is the same every time', () => {
    const [feed] = parseFeedList('https://calendar.example.com/team.ics');
    expect(feed!.url.href).toBe('https://calendar.example.com/team.ics');
    expect(feed!.id).toMatch(/^feed-[0-9a-f]{10}$/);
    expect(parseFeedList('https://calendar.example.com/team.ics')[0]!.id).toBe(feed!.id);
    expect(parseFeedList('https://calendar.example.com/other.ics')[0]!.id).not.toBe(feed!.id);
  });

  it('reads several feeds separated by commas or whitespace, with id= prefixes', () => {
    const feeds = parseFeedList(' holidays=https://h.example/de.ics,\n team=http://t.example/x.ics?k=1  ');
    expect(feeds.map((f) => [f.id, f.url.href])).toEqual([
      ['holidays', 'https://h.example/de.ics'],
      ['team', 'http://t.example/x.ics?k=1'],
    ]);
  });

  it.each([
    ['', /names no feed/],
    ['not-a-url', /is not a URL/],
    ['ftp://files.example/cal.ics', /ftp: feeds are not supported/],
    ['Bad Id=https://x.example/a.ics', /is not a URL/],
    ['BAD=https://x.example/a.ics', /feed id "BAD"/],
    ['a=https://x.example/1.ics a=https://x.example/2.ics', /appears twice/],
  ])('refuses %j', (value, message) => {
    expect(() => parseFeedList(value)).toThrow(message);
  });

  it('uses the embedded feeds when FEED_URL is unset or blank', () => {
    const ids = embeddedFeeds().map((f) => f.id);
    expect(ids).toEqual(['community', 'holidays']);
    expect(feedsFromEnv({}).map((f) => f.id)).toEqual(ids);
    expect(feedsFromEnv({ FEED_URL: '  ' }).map((f) => f.id)).toEqual(ids);
    expect(feedsFromEnv({ FEED_URL: 'x=https://x.example/a.ics' }).map((f) => f.id)).toEqual(['x']);
  });
});
