// A full sync reads a table's pages as JSON written by the database (`jsonItems()`, spliced by
// core) when the table allows it, else as rows turned into items in JavaScript. Both must send
// the service the very same items, page for page: compared here over real HTTP on the demo
// tables and on tables with every column type the app maps (nulls and edge values included),
// on PGlite and, when WEFT_TEST_DATABASE_URL is set, on Postgres.
import { type TestApp, testApp } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqlTablesApp } from '../src/app.js';
import { introspect } from '../src/introspect.js';
import { jsonPageQuery, readRows } from '../src/read-rows.js';
import { qualified } from '../src/sql.js';
import { tableModels } from '../src/table-model.js';
import { PG_URL, type TestDatabase, pgliteDemo, postgresDemo } from './databases.js';

if (!PG_URL) console.log('sql-tables: the Postgres run is skipped because WEFT_TEST_DATABASE_URL is not set');

const runs = [
  { name: 'pglite', enabled: true, open: pgliteDemo },
  { name: 'postgres', enabled: Boolean(PG_URL), open: () => postgresDemo(PG_URL!) },
];

/** Every column type with a JSON form, and a row of ordinary values, one of nulls, and edge cases. */
const EVERY_TYPE = String.raw`
CREATE TYPE weft_mood AS ENUM ('calm', 'odd "one"');
CREATE DOMAIN weft_price AS numeric(12, 3);
CREATE TYPE weft_pair AS (a integer, b text);
CREATE TABLE every_type (
  id bigint PRIMARY KEY,
  label text,
  small smallint, whole integer, big bigint, ref oid,
  exact numeric, scaled numeric(10, 2), price weft_price, cash money,
  real4 real, real8 double precision,
  flag boolean,
  day date,
  at timestamptz, local_at timestamp,
  mood weft_mood, moods weft_mood[], words text[], numbers integer[], grid text[],
  span daterange,
  place point,
  contact_email text, homepage varchar(80), code char(4), nm name,
  uid uuid, doc json, docb jsonb, clock time, clocktz timetz, gap interval, addr inet, pair weft_pair, bits bit(4)
);
INSERT INTO every_type VALUES
  (1, E'quote " backslash \\ line\nbreak\ttab é 😀 \u0001', 7, -8, 9007199254740993, 42,
   12.50, -0.10, 1234.567, 12.34,
   1.1, 1e-5,
   true,
   '2026-02-03',
   '2026-01-02 03:04:05.120+00', '2026-06-30 23:59:59.999999',
   'odd "one"', '{calm,"odd \"one\""}', E'{a,NULL,"b c","\\\\",""}', '{1,NULL,-3}', '{{a,b},{c,"d e"}}',
   '[2020-01-01,2020-02-01)',
   '(13.41,52.51)',
   'a@example.com', 'https://example.com/x?y="z"', 'ab', 'nm',
   'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"b": [1, 2.50] , "a":null}', '{"b": [1, 2.50], "a": null}',
   '12:34:56.5', '12:34:56+02', '1 day 02:03:04', '10.0.0.1/8', '(1,"x y")', B'1010'),
  (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
   NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
   NULL, NULL, NULL),
  (3, 'edges', -32768, 2147483647, -9223372036854775808, 0,
   'NaN', 99999999.99, -0.001, -0.01,
   '-Infinity', 'Infinity',
   false,
   'infinity',
   '-infinity', '0044-03-15 00:00:00 BC',
   'calm', '{}', '{}', '{}', '{}',
   'empty',
   '(NaN,1)',
   NULL, NULL, NULL, NULL, NULL, 'null', 'null', NULL, NULL, NULL, NULL, NULL, NULL),
  (4, 'more edges', 0, 0, 0, 4294967295,
   1e400, 0, 0, 0,
   '-0', '-0',
   NULL,
   '10000-01-01',
   '12026-01-01 00:00:00+00', '0001-01-01 00:00:00',
   NULL, '{NULL}', '{NULL}', '{NULL}', NULL,
   '[2020-01-01,)',
   '(1e-05,-0)',
   NULL, NULL, NULL, NULL, NULL, '[]', '{}', NULL, NULL, NULL, NULL, NULL, NULL),
  (5, 'bounds', 1, 1, 1, 1,
   1.7976931348623157e308, 1, 1, 1,
   3.4028235e38, 1.7976931348623157e308,
   true,
   '0001-01-01',
   '0001-01-01 00:00:00+00', '9999-12-31 23:59:59.999999',
   NULL, NULL, NULL, NULL, NULL,
   '(2020-01-01,2020-02-01]',
   '(-180,90)',
   NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (6, 'late', 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, true, '9999-12-31', '9999-12-31 23:59:59.999999+00',
   '2026-01-01 00:00:00', NULL, NULL, NULL, NULL, NULL, '[9999-12-30,9999-12-31)', '(1e+21,123456789.125)',
   NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
-- No JSON form for a timestamp range: this table is read by rows on both apps.
CREATE TABLE stays (id integer PRIMARY KEY, guest text, during tstzrange);
INSERT INTO stays VALUES (1, 'Ada', '[2026-01-01 10:00+00,2026-01-03 09:00+00)'), (2, NULL, NULL);
-- No text column: the title is made from the id.
CREATE TABLE tallies (id integer PRIMARY KEY, amount integer);
INSERT INTO tallies SELECT i, i * 10 FROM generate_series(1, 7) AS i;
-- More rows than a JSON text holds (500): pages of 1,000 come as several texts.
CREATE TABLE readings (id bigint PRIMARY KEY, name text, value double precision, taken timestamptz);
INSERT INTO readings SELECT i, CASE WHEN i % 7 = 0 THEN NULL ELSE 'reading ' || i END, i / 8.0, timestamptz '2026-01-01' + i * interval '1 minute' FROM generate_series(1, 2345) AS i;
-- Keys past 2^53 (snowflake ids) go as exact text on both paths, and so do relations to them;
-- with pages of 3 the first page goes by JSON, the second holds 2^53 and the rest go by rows.
CREATE TABLE snowflakes (id bigint PRIMARY KEY, label text);
INSERT INTO snowflakes VALUES (1, 'one'), (2, 'two'), (3, 'three'), (9007199254740991, 'largest exact'),
  (9007199254740992, 'two to the 53'), (9007199254740993, 'one past'), (1234567890123456789, 'snowflake');
CREATE TABLE flakes_seen (id integer PRIMARY KEY, flake bigint REFERENCES snowflakes (id), note text);
INSERT INTO flakes_seen VALUES (1, 9007199254740993, 'past'), (2, 1, 'small'), (3, NULL, 'none');
-- Delta sync by updated_at, removals from the deletions table: removed by the id they were sent with.
CREATE TABLE flake_log (id bigint PRIMARY KEY, name text, updated_at timestamptz NOT NULL DEFAULT now());
INSERT INTO flake_log (id, name) VALUES (5, 'small'), (9007199254740993, 'past');
INSERT INTO weft_deletions (table_name, row_id) VALUES ('flake_log', '9007199254740995'), ('flake_log', '6');
-- No text column: the title is made from the exact id.
CREATE TABLE flake_counts (id bigint PRIMARY KEY, hits integer);
INSERT INTO flake_counts VALUES (-9007199254740993, 1), (7, 2), (9007199254740993, 3);
-- A text key whose order is the column's collation, on both paths.
CREATE TABLE tags (id text PRIMARY KEY, name text);
INSERT INTO tags VALUES ('b', 'b'), ('B', 'B'), ('a', 'a'), ('ä', 'ä'), ('10', 'ten'), ('9', 'nine'), ('a b', 'space');
`;

const TABLES = [
  'authors',
  'books',
  'members',
  'loans',
  'favourites',
  'every_type',
  'stays',
  'tallies',
  'tags',
  'snowflakes',
  'flakes_seen',
  'flake_log',
  'flake_counts',
];

for (const run of runs) {
  describe.runIf(run.enabled)(`sql-tables JSON pages on ${run.name}`, () => {
    let db: TestDatabase;
    let json: TestApp;
    let rows: TestApp;
    beforeAll(async () => {
      db = await run.open();
      // One statement at a time: PGlite's query() takes one.
      for (const statement of EVERY_TYPE.split(/;\n/)) if (statement.trim()) await db.sql(statement);
      // Pages of 3, so every table spans pages, and a page may end exactly at the table's end.
      json = await testApp(createSqlTablesApp({ source: db.source, pageSize: 3, jsonPages: true }));
      rows = await testApp(createSqlTablesApp({ source: db.source, pageSize: 3, jsonPages: false }));
    }, 120_000);
    afterAll(async () => {
      await json?.close();
      await rows?.close();
      await db?.close();
    });

    it('reads by JSON the tables whose key and columns allow it, and only those', async () => {
      const database = await db.source.open(db.account);
      const schemas = [db.account.schemas!];
      const models = tableModels(await introspect(database, schemas), schemas);
      const options = { from: 'x AS weft_row', alias: 'weft_row', batch: 3 };
      expect(models.filter((m) => jsonPageQuery(m, options)).map((m) => m.typeId)).toEqual([
        'authors',
        'books',
        'every_type',
        'flake_counts',
        'flake_log',
        'flakes_seen',
        'loans',
        'members',
        'readings',
        'snowflakes',
        'tags',
        'tallies',
      ]);
      // The JSON path yields the page as one marker, then where to resume.
      const model = models.find((m) => m.typeId === 'every_type')!;
      const yielded: unknown[] = [];
      for await (const value of readRows(model, {
        from: `${qualified(db.account.schemas!, 'every_type')} AS weft_row`,
        alias: 'weft_row',
        batch: 3,
        since: null,
        cursor: undefined,
        run: (fn) => fn(database),
        jsonPages: true,
      })) {
        yielded.push(value);
        if (yielded.length === 2) break;
      }
      const [marker] = yielded[0] as Array<{ text: string; count: number }>;
      expect(marker).toMatchObject({ count: 3 });
      expect(JSON.parse(marker!.text).map((r: { id: number }) => r.id)).toEqual([1, 2, 3]);
      expect(yielded[1]).toMatchObject({ state: { p: 'rows', k: ['3'] } });
    });

    it('sends the same items, page for page, as the rows path: demo tables and every column type', async () => {
      for (const table of TABLES) {
        const byJson = await json.sync(table, { account: db.account });
        const byRows = await rows.sync(table, { account: db.account });
        expect(byJson.items, table).toEqual(byRows.items);
        expect(byJson.pages, table).toBe(byRows.pages);
      }
    });

    it('sends bigint ids past 2^53 as exact text, and relations to them alike', async () => {
      const flakes = await json.sync('snowflakes', { account: db.account });
      expect(flakes.items.map((item) => item.id)).toEqual([
        1,
        2,
        3,
        9007199254740991,
        '9007199254740992',
        '9007199254740993',
        '1234567890123456789',
      ]);
      expect(flakes.pages).toBe(3);
      const seen = await json.sync('flakes_seen', { account: db.account });
      expect(seen.items.map((item) => item.flake)).toEqual(['9007199254740993', 1, null]);
      const log = await json.sync('flake_log', {
        account: db.account,
        lastSynchronizedAt: new Date(Date.now() - 86_400_000).toISOString(),
      });
      expect(log.items.map((item) => [item.id, item.__syncAction])).toEqual([
        [5, 'SET'],
        ['9007199254740993', 'SET'],
        [6, 'REMOVE'],
        ['9007199254740995', 'REMOVE'],
      ]);
      const counts = await json.sync('flake_counts', { account: db.account });
      expect(counts.items.map((item) => [item.id, item.name])).toEqual([
        ['-9007199254740993', 'Flake count -9007199254740993'],
        [7, 'Flake count 7'],
        ['9007199254740993', 'Flake count 9007199254740993'],
      ]);
    });

    it('splits a page of more than 500 rows into several JSON texts, in order', async () => {
      const big = { source: db.source, pageSize: 1000 };
      const byJson = await testApp(createSqlTablesApp({ ...big, jsonPages: true }));
      const byRows = await testApp(createSqlTablesApp({ ...big, jsonPages: false }));
      try {
        const first = await byJson.data('readings', { account: db.account });
        expect(first.body.items.map((r: { id: number }) => r.id)).toEqual(
          Array.from({ length: 1000 }, (_, i) => i + 1),
        );
        const json = await byJson.sync('readings', { account: db.account });
        const rows = await byRows.sync('readings', { account: db.account });
        expect(json.pages).toBe(3);
        expect(json.items).toHaveLength(2345);
        expect(json.items).toEqual(rows.items);
      } finally {
        await byJson.close();
        await byRows.close();
      }
    });

    it('sends the wire values the service takes, edge cases as null', async () => {
      const items = (await json.sync('every_type', { account: db.account })).items;
      const [ordinary, nulls, edges, more, bounds, late] = items;
      expect(ordinary).toMatchObject({
        id: 1,
        name: 'quote " backslash \\ line\nbreak\ttab é 😀 \u0001',
        big: 9007199254740992,
        ref: 42,
        exact: 12.5,
        scaled: -0.1,
        price: 1234.567,
        cash: 12.34,
        real4: 1.1,
        real8: 0.00001,
        flag: 'true',
        day: '2026-02-03',
        at: '2026-01-02T03:04:05.12+00:00',
        local_at: '2026-06-30T23:59:59.999999+00:00',
        mood: 'odd "one"',
        moods: ['calm', 'odd "one"'],
        words: ['a', 'b c', '\\', ''],
        numbers: ['1', '-3'],
        grid: ['["a","b"]', '["c","d e"]'],
        span: '{"start":"2020-01-01","end":"2020-01-31"}',
        place: '{"longitude":13.41,"latitude":52.51}',
        contact_email: 'a@example.com',
        code: 'ab  ',
        uid: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
        doc: '{"b": [1, 2.50] , "a":null}',
        docb: '{"a": null, "b": [1, 2.50]}',
        gap: '1 day 02:03:04',
        pair: '(1,"x y")',
        bits: '1010',
      });
      expect(Object.entries(nulls!).filter(([, v]) => v !== null)).toEqual([['id', 2]]);
      expect(edges).toMatchObject({
        exact: null,
        real4: null,
        real8: null,
        day: null,
        at: null,
        local_at: null,
        moods: [],
        span: null,
        place: null,
        doc: 'null',
      });
      expect(more).toMatchObject({ exact: null, real4: 0, real8: 0, day: null, at: null, words: [] });
      expect(more!.local_at).toBe('0001-01-01T00:00:00+00:00');
      expect(more!.span).toBeNull();
      expect(more!.place).toBe('{"longitude":1e-05,"latitude":-0}');
      expect(bounds).toMatchObject({
        exact: 1.7976931348623157e308,
        day: '0001-01-01',
        at: '0001-01-01T00:00:00+00:00',
        span: '{"start":"2020-01-02","end":"2020-02-01"}',
      });
      expect(late).toMatchObject({
        at: '9999-12-31T23:59:59.999999+00:00',
        span: '{"start":"9999-12-30","end":"9999-12-30"}',
      });
      const tallies = (await json.sync('tallies', { account: db.account })).items;
      expect(tallies[6]).toEqual({ id: 7, name: 'Tally 7', amount: 70 });
    });
  });
}
