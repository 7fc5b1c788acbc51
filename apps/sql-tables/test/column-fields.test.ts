// How values read from Postgres become the service's values: the cases the demo does not show.
import { describe, expect, it } from 'vitest';
import { columnReader, exactInteger } from '../src/column-fields.js';

const timestamptz = { name: 'timestamptz', typtype: 'b', category: 'D', sql: 'timestamp with time zone' };
const timestamp = { name: 'timestamp', typtype: 'b', category: 'D', sql: 'timestamp without time zone' };

describe('sql-tables: column values', () => {
  it('turns a timestamp as the session writes it into ISO 8601 in UTC, as to_json writes it, and refuses what is no instant', () => {
    const instant = columnReader(timestamptz, 'updated_at')!.convert;
    expect(instant('2026-01-02 03:04:05+00')).toBe('2026-01-02T03:04:05+00:00');
    expect(instant('2026-01-02 03:04:05.123456+00')).toBe('2026-01-02T03:04:05.123456+00:00');
    expect(instant('2026-01-02 03:04:05+00:00')).toBe('2026-01-02T03:04:05+00:00');
    // Another session time zone: converted to UTC.
    expect(instant('2026-01-02 03:04:05+05:30')).toBe('2026-01-01T21:34:05.000+00:00');
    expect(instant('2026-01-02 03:04:05-02')).toBe('2026-01-02T05:04:05.000+00:00');
    for (const none of [
      'infinity',
      '-infinity',
      '0044-03-15 00:00:00+00 BC',
      '12026-01-02 03:04:05+00',
      42,
    ]) {
      expect(instant(none), String(none)).toBeNull();
    }
    const local = columnReader(timestamp, 'created')!.convert;
    expect(local('2026-01-02 03:04:05')).toBe('2026-01-02T03:04:05+00:00');
    expect(local('2026-01-02 03:04:05.5')).toBe('2026-01-02T03:04:05.5+00:00');
  });

  it('keeps an identifying bigint exact: a number while a double holds it, else its text', () => {
    expect(exactInteger('9007199254740991')).toBe(9007199254740991);
    expect(exactInteger('-9007199254740991')).toBe(-9007199254740991);
    expect(exactInteger('9007199254740992')).toBe('9007199254740992');
    expect(exactInteger('-9223372036854775808')).toBe('-9223372036854775808');
    expect(exactInteger(9007199254740993n)).toBe('9007199254740993');
    expect(exactInteger(42)).toBe(42);
    expect(exactInteger(null)).toBeNull();
    expect(exactInteger('not a number')).toBeNull();
  });
});
