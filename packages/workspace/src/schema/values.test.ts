import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inputValue, isUuid } from './values.js';

/** What a date-time was stored as before canonical values skipped the Date round trip. */
function throughDate(value: string): string | Error {
  try {
    const ms = Date.parse(value);
    if (Number.isNaN(ms)) throw new Error('invalid');
    return new Date(ms).toISOString();
  } catch (error) {
    return error as Error;
  }
}

const attempt = (value: string): string | Error => {
  try {
    return inputValue('t/at', 'svc/date-time', value) as string;
  } catch (error) {
    return error as Error;
  }
};

const digits = (n: number, max: number) => fc.integer({ min: 0, max }).map((v) => String(v).padStart(n, '0'));

describe('inputValue of svc/date-time', () => {
  it('a value in toISOString form is stored as Date would print it, real days and times or not', () => {
    // Days up to 31 in every month and hours up to 24 reach the values the calendar lacks.
    const instant = fc
      .tuple(
        digits(4, 9999),
        digits(2, 13),
        digits(2, 31),
        digits(2, 24),
        digits(2, 60),
        digits(2, 60),
        digits(3, 999),
      )
      .map(([y, mo, d, h, mi, s, ms]) => `${y}-${mo}-${d}T${h}:${mi}:${s}.${ms}Z`);
    fc.assert(
      fc.property(instant, (value) => {
        const expected = throughDate(value);
        const got = attempt(value);
        if (expected instanceof Error) expect(got).toBeInstanceOf(Error);
        else expect(got).toBe(expected);
      }),
      { numRuns: 20_000 },
    );
  });

  it('days and times the calendar lacks are not taken as they read', () => {
    expect(attempt('2026-02-29T10:00:00.000Z')).toBe('2026-03-01T10:00:00.000Z');
    expect(attempt('2024-02-29T10:00:00.000Z')).toBe('2024-02-29T10:00:00.000Z');
    expect(attempt('2026-01-01T24:00:00.000Z')).toBe('2026-01-02T00:00:00.000Z');
    expect(attempt('2026-01-01T23:60:00.000Z')).toBeInstanceOf(Error);
    expect(attempt('2026-03-01T10:00:00+02:00')).toBe('2026-03-01T08:00:00.000Z');
  });
});

describe('inputValue of svc/date', () => {
  it('takes exactly the days of the calendar', () => {
    const day = fc.tuple(digits(4, 9999), digits(2, 13), digits(2, 31)).map(([y, m, d]) => `${y}-${m}-${d}`);
    fc.assert(
      fc.property(day, (value) => {
        const ms = Date.parse(`${value}T00:00:00.000Z`);
        const real = !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === value;
        let got: unknown;
        try {
          got = inputValue('t/day', 'svc/date', value);
        } catch {
          got = undefined;
        }
        expect(got).toBe(real ? value : undefined);
      }),
      { numRuns: 20_000 },
    );
  });
});

describe('inputValue of svc/text', () => {
  it('drops NUL characters (the database cannot store them) and keeps the rest as given', () => {
    expect(inputValue('t/n', 'svc/text', 'a\u0000b\u0000')).toBe('ab');
    expect(inputValue('t/n', 'svc/email', '\u0000')).toBe('');
    expect(inputValue('t/n', 'svc/text', 'tab\there ✓')).toBe('tab\there ✓');
  });
});

describe('isUuid', () => {
  // The 8-4-4-4-12 form the database reads, as the regex it replaces said it.
  const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  const near = fc
    .tuple(
      fc.uuid(),
      fc.nat(35),
      fc.oneof(fc.integer({ min: 0, max: 127 }), fc.integer({ min: 0, max: 0xffff })),
      fc.boolean(),
    )
    .map(([u, at, code, upper]) => {
      const s = upper ? u.toUpperCase() : u;
      return s.slice(0, at) + String.fromCharCode(code) + s.slice(at + 1);
    });

  it('says what the regex says, for uuids, near misses and anything else', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.uuid(), near, fc.string(), fc.string({ minLength: 36, maxLength: 36 })),
        (s) => {
          expect(isUuid(s)).toBe(UUID_RE.test(s));
        },
      ),
      { numRuns: 20_000 },
    );
    // A control character whose code, with bit 5 set, is a digit's (\u0010 → '0').
    for (const s of [
      '',
      '0'.repeat(36),
      '00000000-0000-0000-0000-00000000000\u0010',
      '00000000-0000-0000-0000-00000000000G',
    ])
      expect(isUuid(s)).toBe(UUID_RE.test(s));
    expect(isUuid(42)).toBe(false);
  });
});
