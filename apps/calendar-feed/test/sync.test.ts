// The calendar-feed app over real HTTP: the embedded feeds, paging, filters, datalists, and a
// feed served by a local web server.
import { PROTOCOL_PATHS } from '@weft/core';
import { type TestApp, testApp } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCalendarFeedApp } from '../src/app.js';
import { embeddedFeeds, parseFeedList } from '../src/feeds.js';
import { type FeedServer, startFeedServer } from './feed-server.js';

type Item = Record<string, any>;

const NOW = new Date('2026-06-01T12:00:00Z');
const now = () => NOW;

let app: TestApp;
beforeAll(async () => {
  app = await testApp(createCalendarFeedApp({ now }));
});
afterAll(async () => {
  await app.close();
});

const ids = (items: Item[]) => items.map((i) => i.id as string);
const names = (items: Item[]) => items.map((i) => i.name as string);

describe('calendar-feed: descriptor and schema', () => {
  it('describes two related types and three filters', async () => {
    const { body } = await app.descriptor();
    expect(body.id).toBe('calendar-feed');
    expect(body.authentication).toEqual([expect.objectContaining({ id: 'none' })]);
    const schema = await app.schema(['calendar', 'event']);
    expect(schema.status).toBe(200);
    expect(Object.keys(schema.body)).toEqual(['calendar', 'event']);
    const event = schema.body.event;
    expect(event.calendar.relation).toMatchObject({ targetType: 'calendar', cardinality: 'many-to-one' });
    expect(event.start).toMatchObject({ type: 'date' });
    expect(event.categories).toMatchObject({ type: 'array[text]' });
    expect(schema.body.calendar.events).toBeUndefined();
  });
});

describe('calendar-feed: the embedded feeds', () => {
  it('syncs both calendars', async () => {
    const { items } = await app.sync<Item>('calendar');
    expect(items).toEqual([
      {
        id: 'community',
        name: 'Weft community events',
        description: 'Meetups, office hours, workshops, conferences and releases of the weft community.',
        timezone: 'Europe/Berlin',
        source: null,
      },
      {
        id: 'holidays',
        name: 'Public holidays (Germany, nationwide)',
        description: 'Nationwide public holidays in Germany, 2026 and 2027.',
        timezone: null,
        source: null,
      },
    ]);
  });

  it('expands recurring series with their exclusions and moved instances', async () => {
    const { items } = await app.sync<Item>('event');
    const community = items.filter((e) => e.calendar === 'community');
    const holidays = items.filter((e) => e.calendar === 'holidays');
    expect(community).toHaveLength(72);
    expect(holidays).toHaveLength(18);
    expect(new Set(ids(items)).size).toBe(items.length);

    // Weekly on Thursdays through 2026 (52), less the two EXDATEs at Christmas and New Year's Eve.
    const officeHours = community.filter((e) => e.seriesId === 'office-hours@community.weft.example');
    expect(officeHours).toHaveLength(50);
    // text/boolean values go on the wire as the strings the service reads as booleans.
    expect(officeHours.every((e) => e.recurring === 'true')).toBe(true);
    expect(officeHours.some((e) => e.start.startsWith('2026-12-24'))).toBe(false);
    // 16:00 Berlin is 15:00Z in winter and 14:00Z in summer (VTIMEZONE rules).
    expect(officeHours[0]).toMatchObject({
      id: 'community:office-hours@community.weft.example/2026-01-08T15:00:00.000Z',
      start: '2026-01-08T15:00:00.000Z',
      end: '2026-01-08T16:00:00.000Z',
      allDay: 'false',
    });
    expect(officeHours.find((e) => e.start.startsWith('2026-07-02'))?.start).toBe('2026-07-02T14:00:00.000Z');
    // The RECURRENCE-ID override moves one instance and renames it; the id stays the instance's.
    expect(officeHours.find((e) => e.id.endsWith('/2026-03-12T15:00:00.000Z'))).toMatchObject({
      name: 'Office hours (moved to the evening)',
      start: '2026-03-12T17:00:00.000Z',
      end: '2026-03-12T18:00:00.000Z',
    });

    const christmas = holidays.filter((e) => e.name === 'Christmas Day and Boxing Day');
    expect(christmas.map((e) => [e.start, e.end, e.allDay])).toEqual([
      ['2026-12-25', '2026-12-27', 'true'],
      ['2027-12-25', '2027-12-27', 'true'],
    ]);
  });

  it('sends well-typed, unescaped events ordered by start', async () => {
    const { items } = await app.sync<Item>('event', { filter: { calendar: 'community' } });
    const starts = items.map((e) => Date.parse(e.start));
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    expect(items.find((e) => e.seriesId === 'workshop-first-app@community.weft.example')).toEqual({
      id: 'community:workshop-first-app@community.weft.example',
      name: 'Workshop: your first integration app',
      calendar: 'community',
      start: '2026-02-12T09:00:00.000Z',
      end: '2026-02-12T15:00:00.000Z',
      allDay: 'false',
      location: 'Impact Hub Munich, Gotzinger Str. 8, 81371 München',
      description:
        'A hands-on day: define an app, sync a REST API, pass the conformance kit. Bring a laptop with Node 20.',
      url: 'https://community.weft.example/workshops/first-app',
      categories: ['Workshop', 'Training'],
      status: 'Confirmed',
      organizer: null,
      recurring: 'false',
      seriesId: 'workshop-first-app@community.weft.example',
      updatedAt: '2026-01-15T09:00:00.000Z',
    });
    expect(items.find((e) => e.name === 'Berlin meetup')?.organizer).toBe('berlin@weft.example');
    expect(items.find((e) => e.name.startsWith('Workshop: webhooks'))?.status).toBe('Cancelled');
  });

  it('expands open-ended series only up to the end of next year', async () => {
    const early = await testApp(createCalendarFeedApp({ now: () => new Date('2025-03-01T00:00:00Z') }));
    try {
      const { items } = await early.sync<Item>('event', { filter: { calendar: 'holidays' } });
      expect(items).toHaveLength(9);
      expect(items.every((e) => e.start < '2027-01-01')).toBe(true);
    } finally {
      await early.close();
    }
  });
});

describe('calendar-feed: paging', () => {
  it('gives the same events in small pages, resumable on another replica', async () => {
    const all = await app.sync<Item>('event');
    // Replicas share the key that signs page cursors, as a deployment behind a load balancer does.
    const pageKeys = ['calendar-feed-replicas'];
    const small = await testApp(createCalendarFeedApp({ now, pageSize: 7, batchSize: 5 }), { pageKeys });
    const replica = await testApp(createCalendarFeedApp({ now, pageSize: 7, batchSize: 5 }), { pageKeys });
    try {
      const servers = [small, replica];
      const items: Item[] = [];
      let pagination: unknown = null;
      let pages = 0;
      for (;;) {
        const res = await servers[pages++ % 2]!.data('event', { pagination });
        expect(res.status).toBe(200);
        expect(res.body.items.length).toBeLessThanOrEqual(7);
        items.push(...res.body.items);
        if (!res.body.pagination.hasNext) break;
        pagination = res.body.pagination.nextPageConfig;
        // The resume point names the feed and the last event sent from it: nothing kept in memory.
        const state = (pagination as { state: string }).state;
        expect(Buffer.from(state, 'base64url').toString('utf8')).toMatch(/"feed":"(community|holidays)"/);
      }
      expect(pages).toBeGreaterThanOrEqual(Math.ceil(all.items.length / 7));
      expect(ids(items)).toEqual(ids(all.items));
    } finally {
      await small.close();
      await replica.close();
    }
  });

  it('answers 400 for a page cursor it did not produce', async () => {
    const first = await testApp(createCalendarFeedApp({ now, pageSize: 10 }));
    try {
      const page = await first.data('event');
      const config = page.body.pagination.nextPageConfig;
      // Core signs page cursors: a forged one never reaches the app's own cursor checks.
      const cursor = { feed: 'elsewhere', afterMs: 0, afterKey: 'x' };
      const state = Buffer.from(JSON.stringify({ c: cursor, s: 0 })).toString('base64url');
      const res = await first.data('event', { pagination: { ...config, state } });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/not signed by this app/);
      const garbage = await first.data('event', { pagination: { ...config, state: 'x' } });
      expect(garbage.status).toBe(400);
      expect(typeof garbage.body.message).toBe('string');
    } finally {
      await first.close();
    }
  });
});

describe('calendar-feed: filters and datalists', () => {
  it('narrows calendars and events to one calendar', async () => {
    const calendars = await app.sync<Item>('calendar', { filter: { calendar: 'holidays' } });
    expect(ids(calendars.items)).toEqual(['holidays']);
    const events = await app.sync<Item>('event', { filter: { calendar: 'holidays' } });
    expect(events.items).toHaveLength(18);
    expect(events.items.every((e) => e.calendar === 'holidays')).toBe(true);
  });

  it('narrows events to any of a list of categories', async () => {
    const { items } = await app.sync<Item>('event', { filter: { category: ['Workshop'] } });
    expect(names(items)).toEqual([
      'Workshop: your first integration app',
      'Workshop: OAuth 2 for integration apps',
      'Workshop: webhooks and signatures',
      'Hack day',
    ]);
    // The service may send a single choice as a string.
    const single = await app.sync<Item>('event', { filter: { category: 'Workshop' } });
    expect(ids(single.items)).toEqual(ids(items));
    const either = await app.sync<Item>('event', { filter: { category: ['Release', 'Observance'] } });
    expect(names(either.items)).toEqual(['Release 1.0', 'Release 1.1', 'Christmas Eve', 'Christmas Eve']);
  });

  it('narrows events to those overlapping a date range (bounds read as UTC)', async () => {
    const when = { _min: '2026-12-24T00:00:00.000', _max: '2026-12-26T23:59:59.999' };
    const { items } = await app.sync<Item>('event', { filter: { when } });
    expect(names(items)).toEqual(['Christmas Eve', 'Christmas Day and Boxing Day']);
    // An all-day event's end is exclusive: Christmas (25-26) does not overlap the 27th.
    const after = await app.sync<Item>('event', {
      filter: {
        calendar: 'holidays',
        when: { _min: '2026-12-27T00:00:00.000', _max: '2027-01-01T23:59:59.999' },
      },
    });
    expect(names(after.items)).toEqual(["New Year's Day"]);
    // A multi-day event that started before the range still overlaps it.
    const during = await app.sync<Item>('event', {
      filter: {
        category: ['Conference'],
        when: { _min: '2026-04-24T00:00:00.000', _max: '2026-04-24T23:59:59.999' },
      },
    });
    expect(names(during.items)).toEqual(['API Days Europe']);
  });

  it('handles open-ended ranges and combines the filters', async () => {
    const from = await app.sync<Item>('event', {
      filter: { calendar: 'community', category: ['Meetup'], when: { _min: '2026-11-01T00:00:00.000' } },
    });
    expect(from.items.map((e) => e.start)).toEqual(['2026-11-03T18:00:00.000Z', '2026-12-01T18:00:00.000Z']);
    const to = await app.sync<Item>('event', { filter: { when: { _max: '2025-12-31T23:59:59.999' } } });
    expect(names(to.items)).toEqual(['Year in review 2025']);
  });

  it('answers a filter matching nothing with one empty page', async () => {
    const result = await app.sync<Item>('event', { filter: { category: ['No such category'] } });
    expect(result).toMatchObject({ items: [], pages: 1 });
  });

  it('lists calendars and, depending on the calendar, categories', async () => {
    const calendars = await app.datalist('calendar');
    expect(calendars.body.items).toEqual([
      { title: 'Weft community events', value: 'community' },
      { title: 'Public holidays (Germany, nationwide)', value: 'holidays' },
    ]);
    const holidayCategories = await app.datalist('category', { dependsOn: { calendar: 'holidays' } });
    expect(holidayCategories.body.items).toEqual([
      { title: 'Observance', value: 'Observance' },
      { title: 'Public holiday', value: 'Public holiday' },
    ]);
    const all = await app.datalist('category');
    expect(all.body.items.map((c: Item) => c.value)).toEqual([
      'Conference',
      'Meetup',
      'Observance',
      'Office hours',
      'Online',
      'Public holiday',
      'Release',
      'Talk',
      'Training',
      'Workshop',
    ]);
  });

  it.each([
    [{ calendar: 'nope' }, /"nope" is not a calendar/],
    [
      { when: { _min: '2026-05-01T00:00:00.000', _max: '2026-04-01T00:00:00.000' } },
      /start .* is after the end/,
    ],
    [{ when: { _min: 'soon' } }, /_min "soon" is not a date/],
  ])('answers 400 {message} to filter/validate and data for %j', async (filter, message) => {
    const validate = await app.post(PROTOCOL_PATHS.filterValidate, { filter, types: ['event'], account: {} });
    expect(validate.status).toBe(400);
    expect(validate.body).toEqual({ message: expect.stringMatching(message) });
    const data = await app.data('event', { filter });
    expect(data.status).toBe(400);
    expect(data.body.message).toMatch(message);
  });

  it('accepts a valid filter', async () => {
    const validate = await app.post(PROTOCOL_PATHS.filterValidate, {
      filter: { calendar: 'community', when: { _min: '2026-01-01T00:00:00.000' } },
      types: ['event'],
      account: {},
    });
    expect(validate.status).toBe(204);
  });
});

describe('calendar-feed: feeds by URL', () => {
  const TEAM = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Test//Team//EN',
    'X-WR-CALNAME:Team',
    'BEGIN:VEVENT',
    'UID:standup@team.example',
    'DTSTAMP:20260101T000000Z',
    'DTSTART:20260105T090000Z',
    'DURATION:PT15M',
    'RRULE:FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR;COUNT=10',
    'SUMMARY:Stand-up',
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');
  const SECRET_PATH = '/private-9f8e7d6c5b4a/basic.ics';
  let server: FeedServer;
  let remote: TestApp;

  beforeAll(async () => {
    server = await startFeedServer();
    server.feeds.set(SECRET_PATH, TEAM);
    const feeds = parseFeedList(`team=${server.url}${SECRET_PATH} holidays=${embeddedFeeds()[1]!.url.href}`);
    remote = await testApp(createCalendarFeedApp({ feeds, now, backoffMs: 1 }));
  });
  afterAll(async () => {
    await remote.close();
    await server.close();
  });

  it('fetches the feed over HTTP and syncs it beside a file feed', async () => {
    const calendars = await remote.sync<Item>('calendar');
    expect(calendars.items.map((c) => [c.id, c.name, c.source])).toEqual([
      ['team', 'Team', server.url],
      ['holidays', 'Public holidays (Germany, nationwide)', null],
    ]);
    const { items } = await remote.sync<Item>('event', { filter: { calendar: 'team' } });
    expect(items).toHaveLength(10);
    expect(items[0]).toMatchObject({ start: '2026-01-05T09:00:00.000Z', end: '2026-01-05T09:15:00.000Z' });
    expect(items.at(-1)!.start).toBe('2026-01-16T09:00:00.000Z');
    expect(server.requests.at(-1)!.headers.accept).toMatch(/^text\/calendar/);
  });

  it('retries a 5xx and then succeeds', async () => {
    server.replies.push({ status: 502, body: 'bad gateway' });
    const { items } = await remote.sync<Item>('event', { filter: { calendar: 'team' } });
    expect(items).toHaveLength(10);
  });

  it('answers tryLater when the feed keeps failing', async () => {
    server.replies.push(...Array.from({ length: 4 }, () => ({ status: 503, body: 'down' })));
    const res = await remote.data('event', { filter: { calendar: 'team' } });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ tryLater: true, message: expect.any(String) });
    expect(res.body.message).not.toContain('9f8e7d6c5b4a');
  });

  it('answers 502 naming the feed, without its secret path, when the feed is gone', async () => {
    server.replies.push({ status: 404, body: 'Not Found' });
    const res = await remote.data('calendar', { filter: { calendar: 'team' } });
    expect(res.status).toBe(502);
    expect(res.body.message).toMatch(/answered 404/);
    expect(res.body.message).not.toContain('9f8e7d6c5b4a');
  });

  it('answers 502 when the feed is not iCalendar', async () => {
    server.replies.push({ status: 200, body: '<html>Sign in</html>' });
    const res = await remote.data('event', { filter: { calendar: 'team' } });
    expect(res.status).toBe(502);
    expect(res.body).toEqual({
      message: expect.stringMatching(/^Calendar feed "team" is not valid iCalendar/),
    });
  });
});
