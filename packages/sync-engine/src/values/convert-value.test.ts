// Synced date-times that are already canonical keep their text without a Date round trip: these
// properties hold that shortcut to exactly what the full conversion answers, for valid and invalid
// dates alike (a wrong day must still come out as the full conversion reads it, or as a bad value).
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { canonicalIso, convertValue, toIso, toIsoSlow } from './convert-value.js';

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** `YYYY-MM-DDTHH:mm:ss.sssZ` with each part in and just out of its range (day 0-32, hour 0-25, ...). */
const isoLike = fc
  .record({
    year: fc.integer({ min: 0, max: 9999 }),
    month: fc.integer({ min: 0, max: 13 }),
    day: fc.integer({ min: 0, max: 32 }),
    hour: fc.integer({ min: 0, max: 25 }),
    minute: fc.integer({ min: 0, max: 61 }),
    second: fc.integer({ min: 0, max: 61 }),
    ms: fc.integer({ min: 0, max: 999 }),
  })
  .map(
    (d) =>
      `${pad(d.year, 4)}-${pad(d.month, 2)}-${pad(d.day, 2)}T${pad(d.hour, 2)}:${pad(d.minute, 2)}:${pad(d.second, 2)}.${pad(d.ms, 3)}Z`,
  );

/** One character of a canonical-looking string replaced: separators, digits, the zone. */
const mutated = fc
  .tuple(isoLike, fc.nat({ max: 23 }), fc.constantFrom('-', ':', 'T', 'Z', '.', ' ', 'x', '0', '9', '+', '/'))
  .map(([s, i, c]) => s.slice(0, i) + c + s.slice(i + 1));

const real = fc
  .date({
    min: new Date('0000-01-01T00:00:00.000Z'),
    max: new Date('9999-12-31T23:59:59.999Z'),
    noInvalidDate: true,
  })
  .map((d) => d.toISOString());

it('the canonical shortcut answers what the full date-time conversion answers', () => {
  fc.assert(
    fc.property(fc.oneof(isoLike, mutated, real, fc.string()), (s) => {
      expect(toIso(s)).toBe(toIsoSlow(s));
    }),
    { numRuns: 5000 },
  );
});

it('takes the shortcut for every date-time toISOString prints, and only for those', () => {
  fc.assert(
    fc.property(real, (s) => {
      expect(canonicalIso(s)).toBe(true);
    }),
  );
  fc.assert(
    fc.property(fc.oneof(isoLike, mutated), (s) => {
      if (canonicalIso(s)) expect(toIsoSlow(s)).toBe(s);
    }),
    { numRuns: 5000 },
  );
});

it('still rolls over and rejects dates exactly as before', () => {
  // Date.parse rolls a day past its month's end over into the next month: kept as it was.
  expect(convertValue('date-time', '2026-02-30T00:00:00.000Z')).toBe('2026-03-02T00:00:00.000Z');
  expect(convertValue('date-time', '2024-02-29T24:00:00.000Z')).toBe('2024-03-01T00:00:00.000Z');
  // What Date.parse refuses is a bad value (undefined: stored empty and counted).
  expect(convertValue('date-time', '2026-13-01T00:00:00.000Z')).toBeUndefined();
  expect(convertValue('date-time', '2026-01-01T00:00:60.000Z')).toBeUndefined();
  expect(convertValue('date-time', '2026-01-00T00:00:00.000Z')).toBeUndefined();
  expect(convertValue('date-time', '2024-02-29T12:30:00.250Z')).toBe('2024-02-29T12:30:00.250Z');
  expect(convertValue('date-time', '2026-01-01')).toBe('2026-01-01T00:00:00.000Z');
  expect(convertValue('date-time', 0)).toBe('1970-01-01T00:00:00.000Z');
  expect(convertValue('date-range', { start: '2026-05-01T10:00:00.000Z', end: '2026-05-02' })).toEqual({
    start: '2026-05-01',
    end: '2026-05-02',
  });
});

it('keeps a canonical date-time as sent, with no coercion noted, and still pads a short one', () => {
  fc.assert(
    fc.property(real, (s) => {
      const notes: string[] = [];
      expect(convertValue('date-time', s, (c) => notes.push(c))).toBe(s);
      expect(notes).toEqual([]);
    }),
  );
  const notes: string[] = [];
  expect(convertValue('date-time', '2024-3-5T10:00:00.000Z', (c) => notes.push(c))).toBe(
    '2024-03-05T10:00:00.000Z',
  );
  expect(notes).toEqual(['date without zero padding']);
});

it('stores a range open on one side as the one day (or time) it names, and says so', () => {
  for (const [conversion, day] of [
    ['date-range', '2026-05-01'],
    ['date-time-range', '2026-05-01T10:00:00.000Z'],
  ] as const) {
    for (const open of [{ start: day, end: null }, { start: day }, { start: null, end: day }, { end: day }]) {
      const notes: string[] = [];
      expect(convertValue(conversion, JSON.stringify(open), (c) => notes.push(c))).toEqual({
        start: day,
        end: day,
      });
      expect(notes).toEqual(['open date range (one side missing), stored as the one day or time it names']);
    }
    // Open on both sides, or a side that is not a date: nothing to store.
    expect(convertValue(conversion, JSON.stringify({ start: null, end: null }))).toBeUndefined();
    expect(convertValue(conversion, '{}')).toBeUndefined();
    expect(convertValue(conversion, JSON.stringify({ start: day, end: 'soon' }))).toBeUndefined();
    expect(convertValue(conversion, JSON.stringify({ start: 'soon', end: null }))).toBeUndefined();
  }
});
