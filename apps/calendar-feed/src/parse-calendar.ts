// iCalendar (RFC 5545) text → a calendar and its event occurrences, with ical.js: it unfolds and
// unescapes properties, resolves VTIMEZONE definitions, and expands RRULE/RDATE/EXDATE series
// with their RECURRENCE-ID overrides, which are the parts of iCal that are easy to get wrong by hand.
import ICAL from 'ical.js';

/** A calendar as the feed describes itself. */
export interface CalendarInfo {
  name: string;
  description: string | null;
  timezone: string | null;
}

/** One occurrence of an event: a single event, or one instance of a recurring series. */
export interface Occurrence {
  /** `uid` for a single event; `uid/<recurrence id>` for an instance of a series. */
  key: string;
  uid: string;
  summary: string;
  /** ISO 8601: `YYYY-MM-DD` for all-day events, else an instant in UTC. */
  start: string;
  end: string;
  /** Sort and filter key: the start as epoch milliseconds (all-day: midnight UTC). */
  startMs: number;
  endMs: number;
  allDay: boolean;
  location: string | null;
  description: string | null;
  url: string | null;
  categories: string[];
  status: 'Confirmed' | 'Tentative' | 'Cancelled' | null;
  organizer: string | null;
  recurring: boolean;
  updatedAt: string | null;
}

export interface ParsedCalendar {
  info: CalendarInfo;
  /** Every occurrence in the window, ordered by start, then key. */
  occurrences: Occurrence[];
}

export interface ExpansionWindow {
  /** Occurrences ending before this instant are left out. */
  fromMs?: number | undefined;
  /** Occurrences starting after this instant are left out; also ends open-ended series. */
  toMs: number;
}

/** Most instances expanded from one series, whatever the window: a guard against runaway rules. */
export const MAX_INSTANCES_PER_SERIES = 5_000;

/** The feed is not valid iCalendar. */
export class FeedFormatError extends Error {
  override readonly name = 'FeedFormatError';
}

export function parseCalendar(text: string, window: ExpansionWindow): ParsedCalendar {
  let root: ICAL.Component;
  try {
    root = new ICAL.Component(ICAL.parse(text) as any[]);
  } catch (error) {
    throw new FeedFormatError(`not valid iCalendar (${(error as Error).message})`, { cause: error });
  }
  if (root.name !== 'vcalendar') throw new FeedFormatError(`expected VCALENDAR, found ${root.name}`);
  registerTimezones(root);

  const info: CalendarInfo = {
    name: unescapeText(text_(root.getFirstPropertyValue('x-wr-calname'))) ?? 'Calendar',
    description: unescapeText(text_(root.getFirstPropertyValue('x-wr-caldesc'))),
    timezone: text_(root.getFirstPropertyValue('x-wr-timezone')),
  };

  // A series is its master VEVENT plus the VEVENTs overriding single instances (same UID).
  const masters = new Map<string, ICAL.Event>();
  const overrides: ICAL.Component[] = [];
  for (const vevent of root.getAllSubcomponents('vevent')) {
    const uid = text_(vevent.getFirstPropertyValue('uid'));
    if (!uid || !vevent.hasProperty('dtstart')) continue; // not an event the service could place
    if (vevent.hasProperty('recurrence-id')) overrides.push(vevent);
    else masters.set(uid, new ICAL.Event(vevent));
  }
  const orphans: ICAL.Component[] = [];
  for (const vevent of overrides) {
    const master = masters.get(text_(vevent.getFirstPropertyValue('uid'))!);
    if (master) master.relateException(vevent);
    else orphans.push(vevent); // an override without its series: a plain event
  }

  const occurrences: Occurrence[] = [];
  const keep = (o: Occurrence) => {
    // Overlap: starts by the window's end, and ends after its start (an instant: starts in it).
    const from = window.fromMs;
    if (o.startMs <= window.toMs && (from === undefined || o.endMs > from || o.startMs >= from)) {
      occurrences.push(o);
    }
  };
  for (const event of masters.values()) {
    if (!event.isRecurring()) {
      keep(toOccurrence(event, event.startDate, event.endDate, null));
      continue;
    }
    const iterator = event.iterator();
    for (
      let n = 0, next = iterator.next();
      next && n < MAX_INSTANCES_PER_SERIES;
      n++, next = iterator.next()
    ) {
      if (toMs(next) > window.toMs) break;
      const details = event.getOccurrenceDetails(next);
      keep(toOccurrence(details.item, details.startDate, details.endDate, details.recurrenceId));
    }
  }
  for (const vevent of orphans) {
    const event = new ICAL.Event(vevent);
    keep(toOccurrence(event, event.startDate, event.endDate, event.recurrenceId));
  }
  occurrences.sort(compareOccurrences);
  return { info, occurrences };
}

export function compareOccurrences(a: { startMs: number; key: string }, b: { startMs: number; key: string }) {
  return a.startMs - b.startMs || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
}

function registerTimezones(root: ICAL.Component) {
  for (const vtimezone of root.getAllSubcomponents('vtimezone')) {
    const tzid = text_(vtimezone.getFirstPropertyValue('tzid'));
    // The service is process-wide: a cache of zone rules by TZID, not state of a sync.
    if (tzid && !ICAL.TimezoneService.has(tzid)) ICAL.TimezoneService.register(vtimezone);
  }
}

function toOccurrence(
  event: ICAL.Event,
  start: ICAL.Time,
  endOrNull: ICAL.Time | null,
  recurrenceId: ICAL.Time | null,
): Occurrence {
  const component = event.component;
  // RFC 5545 3.6.1: without DTEND/DURATION an all-day event lasts one day, a timed one no time.
  const end = endOrNull ?? (start.isDate ? dayAfter(start) : start);
  const categories = component
    .getAllProperties('categories')
    .flatMap((p) => p.getValues().map((v) => String(v).trim()))
    .filter((v) => v !== '');
  const status = text_(component.getFirstPropertyValue('status'))?.toUpperCase();
  const organizer = text_(component.getFirstPropertyValue('organizer'));
  const modified =
    component.getFirstPropertyValue('last-modified') ?? component.getFirstPropertyValue('dtstamp');
  return {
    key: recurrenceId ? `${event.uid}/${iso(recurrenceId)}` : event.uid,
    uid: event.uid,
    summary: text_(event.summary) ?? '(no title)',
    start: iso(start),
    end: iso(end),
    startMs: toMs(start),
    endMs: toMs(end),
    allDay: start.isDate,
    location: text_(event.location),
    description: text_(event.description),
    url: text_(component.getFirstPropertyValue('url')),
    categories: [...new Set(categories)],
    status:
      status === 'CONFIRMED'
        ? 'Confirmed'
        : status === 'TENTATIVE'
          ? 'Tentative'
          : status === 'CANCELLED'
            ? 'Cancelled'
            : null,
    organizer: organizer ? organizer.replace(/^mailto:/i, '') : null,
    recurring: recurrenceId !== null,
    updatedAt: modified instanceof ICAL.Time ? iso(modified) : null,
  };
}

/** `YYYY-MM-DD` for a date, else the instant in UTC. Floating times are read as UTC. */
function iso(time: ICAL.Time): string {
  if (time.isDate) return time.toString();
  return new Date(toMs(time)).toISOString();
}

function toMs(time: ICAL.Time): number {
  if (time.isDate) return Date.UTC(time.year, time.month - 1, time.day);
  // toUnixTime() honours the zone (a registered VTIMEZONE or UTC); floating times count as UTC.
  return time.toUnixTime() * 1000;
}

function dayAfter(date: ICAL.Time): ICAL.Time {
  const next = date.clone();
  next.adjust(1, 0, 0, 0);
  return next;
}

/** X- properties are not unescaped by the parser (their type is unknown): RFC 5545 3.3.11 TEXT. */
function unescapeText(value: string | null): string | null {
  return value === null
    ? null
    : value.replace(/\\([\\;,nN])/g, (_, c: string) => (c === 'n' || c === 'N' ? '\n' : c));
}

function text_(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}
