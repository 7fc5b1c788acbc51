import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BinaryRows, type BinaryType, isBinaryType } from '../src/db/copy-binary.js';
import { copyValue } from '../src/db/copy-text.js';
import type { Driver } from '../src/db/driver.js';
import { openDriver } from '../src/db/open-driver.js';
import { neverExact } from '../src/entities/created-result.js';
import { PRIMITIVE_TYPES } from '../src/schema/catalog.js';
import { COLUMN_TYPE } from '../src/schema/values.js';
import { describeEachDatabase } from './support/databases.js';

// COPY's binary format, which bulk creates send: every value the create path sends must be stored
// exactly as the same value sent as COPY text is (the format it replaced), on both engines; a
// value a writer cannot carry is refused, never written differently.

const COLUMNS = ['k', 'u', 't', 'n', 'd', 'b', 'day', 'at'] as const;
const TYPES: BinaryType[] = ['uuid', 'text', 'bigint', 'numeric', 'boolean', 'date', 'timestamptz'];
const TABLE = `(k bigint PRIMARY KEY, u uuid, t text, n bigint, d numeric, b boolean, day date, at timestamptz)`;

type Row = [number, ...unknown[]];

/** The rows in COPY's binary format, cut into `cuts + 1` chunks of whole rows. */
function binary(rows: Row[], cuts: number): Buffer[] {
  const out = new BinaryRows(64);
  const chunks: Buffer[] = [];
  const every = Math.max(1, Math.ceil(rows.length / (cuts + 1)));
  for (const [i, [k, ...values]] of rows.entries()) {
    out.row(COLUMNS.length);
    expect(out.value('bigint', k)).toBe(true);
    for (const [c, v] of values.entries()) expect(out.value(TYPES[c], v)).toBe(true);
    if ((i + 1) % every === 0) chunks.push(out.take());
  }
  chunks.push(out.take(), BinaryRows.end());
  return chunks;
}

const text = (rows: Row[]) => rows.map((r) => `${r.map(copyValue).join('\t')}\n`).join('');

const stored = async (driver: Driver, table: string) =>
  (
    await driver.query(
      `SELECT k::text, u::text, t, n::text, d::text, b::text, day::text, at::text FROM ${table} ORDER BY k`,
    )
  ).rows;

// What the create path sends: safe integers, canonical decimals (and what else the writer takes),
// days and millisecond times of years 1000-9999, uuids in either case, strings without NUL or a
// lone surrogate (tabs, newlines and backslashes included: COPY text escapes them).
const day = fc.date({
  min: new Date('1000-01-01T00:00:00.000Z'),
  max: new Date('9999-12-31T23:59:59.999Z'),
  noInvalidDate: true,
});
const decimal = fc
  .tuple(
    fc.boolean(),
    fc.bigInt({ min: 0n, max: 10n ** 40n }),
    fc.option(fc.stringMatching(/^\d{1,24}$/), { nil: undefined }),
  )
  .map(([neg, int, frac]) => `${neg ? '-' : ''}${int}${frac === undefined ? '' : `.${frac}`}`);
const row = (k: number) =>
  fc.tuple(
    fc.constant(k),
    fc.option(
      fc.tuple(fc.uuid(), fc.boolean()).map(([u, upper]) => (upper ? u.toUpperCase() : u)),
      { nil: null },
    ),
    fc.option(
      fc.oneof(
        fc.string({ unit: 'grapheme' }),
        fc.string({ unit: fc.constantFrom('\t', '\n', '\r', '\\', 'a', 'é', '€', '😀') }),
      ),
      { nil: null },
    ),
    fc.option(fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }), { nil: null }),
    fc.option(decimal, { nil: null }),
    fc.option(fc.boolean(), { nil: null }),
    fc.option(
      day.map((d) => d.toISOString().slice(0, 10)),
      { nil: null },
    ),
    fc.option(
      day.map((d) => d.toISOString()),
      { nil: null },
    ),
  ) as fc.Arbitrary<Row>;
const rows = fc
  .integer({ min: 1, max: 30 })
  .chain((n) => fc.tuple(...Array.from({ length: n }, (_, k) => row(k))))
  .map((r) => r.map((x) => x.map((v) => (typeof v === 'string' ? v.replaceAll('\0', '') : v)) as Row));

describe('BinaryRows', () => {
  it('has a writer for the column of every field type whose values go through COPY', () => {
    // A create's COPY carries only exact values (created-result.ts); JSON never is one. A new
    // field type must be one of the two, or its rows would fail their COPY.
    for (const type of PRIMITIVE_TYPES) {
      expect(isBinaryType(COLUMN_TYPE[type]) || neverExact(type), type).toBe(true);
    }
  });

  it('refuses what the create path never sends, and writes nothing for it', () => {
    const refused: Array<[BinaryType | undefined, unknown]> = [
      ['bigint', 1.5],
      ['bigint', 2 ** 53],
      ['bigint', '1'],
      ['numeric', 5],
      ['numeric', '1e5'],
      ['numeric', '.5'],
      ['numeric', '1.'],
      ['numeric', '+1'],
      ['numeric', '1.2.3'],
      ['numeric', '-'],
      ['boolean', 'true'],
      ['text', 1],
      ['date', '999-01-01'],
      ['date', '0999-01-01'],
      ['date', '2026-13-01'],
      ['date', '2026-1-01'],
      ['date', '2026-01-01T00:00:00.000Z'],
      ['timestamptz', '2026-01-01T00:00:00Z'],
      ['timestamptz', '2026-01-01T24:00:00.000Z'],
      ['timestamptz', '2026-01-01 00:00:00.000Z'],
      ['timestamptz', '2026-01-01T00:00:00.000+0'],
      ['timestamptz', '+010000-01-01T00:00:00.000Z'],
      ['uuid', 'not-a-uuid'],
      ['uuid', '123e4567-e89b-12d3-a456-42661417400g'],
      ['uuid', '123e4567ae89ba12d3aa456a426614174000'],
      [undefined, { a: 1 }],
    ];
    for (const [type, value] of refused) {
      const out = new BinaryRows();
      out.take();
      expect(out.value(type, value), `${type} ${JSON.stringify(value)}`).toBe(false);
      expect(out.take().length).toBe(0);
    }
    // A column the format does not carry takes null.
    const out = new BinaryRows();
    out.take();
    expect(out.value(undefined, null)).toBe(true);
    expect([...out.take()]).toEqual([0xff, 0xff, 0xff, 0xff]);
  });
});

describeEachDatabase('COPY in binary format', (target) => {
  let driver: Driver;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const created = await target.create();
    drop = created.drop;
    driver = await openDriver(created.database);
    await driver.exec(`CREATE TABLE as_text ${TABLE}; CREATE TABLE as_binary ${TABLE}`);
  });
  afterAll(async () => {
    await driver.close();
    await drop();
  });

  const copyBoth = async (r: Row[], cuts: number) => {
    await driver.exec('TRUNCATE as_text, as_binary');
    await driver.transaction(async (tx) => {
      await tx.copyIn!('as_text', COLUMNS, text(r));
      await tx.copyIn!('as_binary', COLUMNS, binary(r, cuts), { binary: true });
    });
    return [await stored(driver, 'as_text'), await stored(driver, 'as_binary')];
  };

  it('stores the edges of every value the same as COPY text', async () => {
    const edges: Row[] = [
      [
        1,
        '00000000-0000-0000-0000-000000000000',
        '',
        0,
        '0',
        false,
        '1000-01-01',
        '1000-01-01T00:00:00.000Z',
      ],
      [
        2,
        'FFFFFFFF-FFFF-4FFF-BFFF-FFFFFFFFFFFF',
        'tab\there\nnew\\line é€😀',
        Number.MAX_SAFE_INTEGER,
        `${'9'.repeat(60)}.${'0'.repeat(39)}1`,
        true,
        '9999-12-31',
        '9999-12-31T23:59:59.999Z',
      ],
      [3, null, null, Number.MIN_SAFE_INTEGER, '-0.0001', null, '2000-01-01', '1999-12-31T23:59:59.999Z'],
      [4, null, 'x', -1, '-0', null, '1999-12-31', '2000-01-01T00:00:00.000Z'],
      [5, null, null, null, '10000.10000', null, '2024-02-29', '1970-01-01T00:00:00.001Z'],
      [6, null, null, 4_294_967_296, '0.00000001', null, '1969-12-31', '2255-06-05T23:47:34.741Z'],
      [7, null, null, -4_294_967_297, '1234', null, '1582-10-04', '1969-12-31T23:59:59.999Z'],
      [8, null, null, null, null, null, null, null],
    ];
    const [asText, asBinary] = await copyBoth(edges, 2);
    expect(asBinary).toEqual(asText);
    expect(asBinary?.[1]).toMatchObject({
      u: 'ffffffff-ffff-4fff-bfff-ffffffffffff',
      n: String(Number.MAX_SAFE_INTEGER),
    });
  });

  it('stores any rows the create path sends the same as COPY text (property)', async () => {
    await fc.assert(
      fc.asyncProperty(rows, fc.integer({ min: 0, max: 3 }), async (r, cuts) => {
        const [asText, asBinary] = await copyBoth(r, cuts);
        expect(asBinary).toEqual(asText);
      }),
      { numRuns: 25 },
    );
  });

  it('fails with the database error, rolls back, and the driver goes on', async () => {
    await driver.exec('TRUNCATE as_binary');
    const twice: Row[] = [
      [1, null, 'a', null, null, null, null, null],
      [1, null, 'b', null, null, null, null, null],
    ];
    const error = await driver
      .transaction(async (tx) => {
        await tx.query(`INSERT INTO as_binary (k) VALUES (9)`);
        await tx.copyIn!('as_binary', COLUMNS, binary(twice, 1), { binary: true, commit: true });
      })
      .catch((e: unknown) => e);
    expect((error as { code?: string }).code).toBe('23505');
    expect(await stored(driver, 'as_binary')).toEqual([]);
    await driver.transaction(async (tx) =>
      tx.copyIn!('as_binary', COLUMNS, binary(twice.slice(1), 0), { binary: true, commit: true }),
    );
    expect(await stored(driver, 'as_binary')).toMatchObject([{ k: '1', t: 'b' }]);
  });
});
