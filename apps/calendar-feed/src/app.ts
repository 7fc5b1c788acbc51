// Calendar feed: a public integration app that syncs iCalendar feeds (the embedded community
// calendar and public holidays, or any published .ics by URL) into two related types,
// calendars and their events, with recurring series expanded into occurrences.
import { BadRequestError, InvalidFilterError, auth, defineApp, field, input, resume } from '@weft/core';
import { z } from 'zod';
import { type FeedSource, embeddedFeeds } from './feeds.js';
import { type LoadOptions, loadCalendar } from './load-feed.js';
import { type ExpansionWindow, type Occurrence, compareOccurrences } from './parse-calendar.js';

/** Items per page sent to the service. */
export const PAGE_SIZE = 500;
/** Occurrences per resume point: a later page re-reads the feed and skips at most this many rows. */
export const BATCH_SIZE = 100;

export interface CalendarFeedOptions {
  /** The feeds to sync; default the embedded ones (see `feedsFromEnv` for FEED_URL). */
  feeds?: FeedSource[];
  /** The current time, for the default expansion horizon; default the real clock. */
  now?: () => Date;
  /** Items per page sent to the service; default {@link PAGE_SIZE}. */
  pageSize?: number;
  /** Occurrences per resume point; default {@link BATCH_SIZE}. */
  batchSize?: number;
  /** Time limit of one feed fetch attempt in ms; default 15,000. */
  timeoutMs?: number;
  /** Base of the retry backoff in ms; default core's 250. */
  backoffMs?: number;
}

/** A date filter as the service sends it: timezone-naive ISO 8601 bounds, read here as UTC. */
interface DateBounds {
  _min?: string;
  _max?: string;
}

/** The resume point of an event sync: the feed being read and the last occurrence sent from it. */
const eventCursor = z.object({
  feed: z.string(),
  afterMs: z.number(),
  afterKey: z.string(),
});

const STATUSES = ['Confirmed', 'Tentative', 'Cancelled'] as const;

export function createCalendarFeedApp(options: CalendarFeedOptions = {}) {
  const feeds = options.feeds ?? embeddedFeeds();
  const now = options.now ?? (() => new Date());
  const batchSize = options.batchSize ?? BATCH_SIZE;
  if (feeds.length === 0) throw new Error('createCalendarFeedApp: no feed to sync');

  function loadOptions(signal: AbortSignal, log?: LoadOptions['log']): LoadOptions {
    return {
      signal,
      ...(log ? { log } : {}),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.backoffMs === undefined ? {} : { backoffMs: options.backoffMs }),
    };
  }

  /**
   * Which occurrences to expand: the filter's range, else everything up to the end of next year.
   * The horizon moves only on 1 January, and paging resumes by (start, key), so a sync that
   * spans New Year gets no duplicates and no gaps.
   */
  function windowOf(when: DateBounds | undefined): ExpansionWindow {
    const { fromMs, toMs } = bounds(when);
    const horizon = Date.UTC(now().getUTCFullYear() + 2, 0, 1) - 1;
    return { fromMs, toMs: toMs ?? horizon };
  }

  function selected(calendar: string | undefined): FeedSource[] {
    if (calendar === undefined || calendar === '') return feeds;
    const feed = feeds.find((f) => f.id === calendar);
    if (!feed) throw new InvalidFilterError(`Filter "calendar": "${calendar}" is not a calendar of this app`);
    return [feed];
  }

  return defineApp({
    id: 'calendar-feed',
    name: 'Calendar feed',
    version: '1.0.0',
    description: 'Syncs public iCalendar (.ics) feeds: calendars and their events, recurring ones expanded.',
    website: 'https://github.com/weft/weft/tree/main/apps/calendar-feed',
    logo: {
      svg: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path fill="#c0392b" d="M3 5h18v4H3z"/><path fill="#7f8c8d" d="M3 9h18v12H3zM7 2h2v4H7zM15 2h2v4h-2z"/><path fill="#fff" d="M6 12h3v3H6zm5 0h3v3h-3zm5 0h2v3h-2zM6 16h3v3H6zm5 0h3v3h-3z"/></svg>',
    },
    authentication: [auth.none({ name: 'Public feeds', description: 'No account needed' })],
    pageSize: options.pageSize ?? PAGE_SIZE,
    sync: {
      filters: {
        calendar: input.list({
          name: 'Calendar',
          description: 'Only this calendar and its events',
          datalist: true,
          optional: true,
        }),
        category: input.multidropdown({
          name: 'Categories',
          description: 'Only events with at least one of these categories',
          datalist: true,
          dependsOn: ['calendar'],
          optional: true,
        }),
        when: input.date({
          name: 'When',
          description: 'Only events overlapping this range, e.g. "this year" or "from 01-11-2026" (UTC)',
          optional: true,
        }),
      },
      datalists: {
        calendar: async ({ signal, log }) => {
          const items = [];
          for (const feed of feeds) {
            const { info } = await loadCalendar(feed, windowOf(undefined), loadOptions(signal, log));
            items.push({ title: info.name, value: feed.id });
          }
          return items;
        },
        category: async ({ dependsOn, signal, log }) => {
          const calendar = typeof dependsOn.calendar === 'string' ? dependsOn.calendar : undefined;
          const categories = new Set<string>();
          for (const feed of selected(calendar)) {
            const parsed = await loadCalendar(feed, windowOf(undefined), loadOptions(signal, log));
            for (const o of parsed.occurrences) for (const c of o.categories) categories.add(c);
          }
          return [...categories].sort((a, b) => a.localeCompare(b)).map((c) => ({ title: c, value: c }));
        },
      },
      validateFilter: async ({ filter }) => {
        bounds(filter.when);
        selected(filter.calendar);
      },
      types: {
        calendar: {
          name: 'Calendars',
          fields: {
            id: field.id(),
            name: field.title({ name: 'Name' }),
            description: field.text(),
            timezone: field.text({ name: 'Time Zone' }),
            source: field.url({ description: 'The web site publishing the feed' }),
          },
          async *data({ filter, signal, log }) {
            for (const feed of selected(filter.calendar)) {
              const { info } = await loadCalendar(feed, windowOf(filter.when), loadOptions(signal, log));
              yield {
                id: feed.id,
                name: info.name,
                description: info.description,
                timezone: info.timezone,
                // The origin only: a private link's path or query is its secret, and a file path is no
                // business of the workspace.
                source: feed.url.protocol === 'file:' ? null : feed.url.origin,
              };
            }
          },
        },
        event: {
          name: 'Events',
          fields: {
            id: field.id(),
            name: field.title({ name: 'Title' }),
            calendar: field.relation({ to: 'calendar', cardinality: 'many-to-one', targetName: 'Events' }),
            start: field.date(),
            end: field.date(),
            allDay: field.bool({ name: 'All Day' }),
            location: field.text(),
            description: field.text(),
            url: field.url({ name: 'URL' }),
            categories: field.textArray(),
            status: field.singleSelect({ options: STATUSES.map((name) => ({ name })) }),
            organizer: field.email(),
            recurring: field.bool(),
            seriesId: field.text({ name: 'Series ID', description: 'The iCalendar UID, shared by a series' }),
            updatedAt: field.date({ name: 'Updated At' }),
          },
          async *data({ filter, cursor, signal, log }) {
            const window = windowOf(filter.when);
            const wanted = filter.category && filter.category.length > 0 ? new Set(filter.category) : null;
            const list = selected(filter.calendar);
            const from = readCursor(cursor);
            let index = 0;
            if (from) {
              index = list.findIndex((f) => f.id === from.feed);
              if (index < 0) {
                throw new BadRequestError(
                  `Calendar "${from.feed}" is no longer configured; start the sync again`,
                );
              }
            }
            for (; index < list.length; index++) {
              const feed = list[index]!;
              const parsed = await loadCalendar(feed, window, loadOptions(signal, log));
              const after = from?.feed === feed.id ? { startMs: from.afterMs, key: from.afterKey } : null;
              const rows = parsed.occurrences.filter(
                (o) =>
                  (!wanted || o.categories.some((c) => wanted.has(c))) &&
                  (!after || compareOccurrences(o, after) > 0),
              );
              for (let i = 0; i < rows.length; i += batchSize) {
                const batch = rows.slice(i, i + batchSize);
                yield batch.map((o) => toItem(feed, o));
                const last = batch.at(-1)!;
                yield resume({ feed: feed.id, afterMs: last.startMs, afterKey: last.key });
              }
            }
          },
        },
      },
    },
  });
}

function toItem(feed: FeedSource, o: Occurrence) {
  return {
    id: `${feed.id}:${o.key}`,
    name: o.summary,
    calendar: feed.id,
    start: o.start,
    end: o.end,
    allDay: o.allDay,
    location: o.location,
    description: o.description,
    url: o.url,
    categories: o.categories,
    status: o.status,
    organizer: o.organizer,
    recurring: o.recurring,
    seriesId: o.uid,
    updatedAt: o.updatedAt,
  };
}

function readCursor(cursor: unknown): z.infer<typeof eventCursor> | null {
  if (cursor === undefined) return null;
  const parsed = eventCursor.safeParse(cursor);
  if (!parsed.success) throw new BadRequestError('The page cursor is not one this app produced');
  return parsed.data;
}

/** Checks and converts a date filter; 400 naming the problem. Naive bounds are read as UTC. */
export function bounds(when: DateBounds | undefined): { fromMs?: number; toMs?: number } {
  const result: { fromMs?: number; toMs?: number } = {};
  for (const key of ['_min', '_max'] as const) {
    const value = when?.[key];
    if (value === undefined) continue;
    const ms = Date.parse(/(Z|[+-]\d\d:?\d\d)$/.test(value) || value.length <= 10 ? value : `${value}Z`);
    if (Number.isNaN(ms)) throw new InvalidFilterError(`Filter "when": ${key} "${value}" is not a date`);
    result[key === '_min' ? 'fromMs' : 'toMs'] = ms;
  }
  if (result.fromMs !== undefined && result.toMs !== undefined && result.fromMs > result.toMs) {
    throw new InvalidFilterError(`Filter "when": the start (${when!._min}) is after the end (${when!._max})`);
  }
  return result;
}

/** The app on its embedded feeds. */
export const calendarFeedApp = createCalendarFeedApp();
export default calendarFeedApp;
