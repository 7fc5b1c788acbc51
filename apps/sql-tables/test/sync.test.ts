// The app over real HTTP on the embedded PGlite demo and, when WEFT_TEST_DATABASE_URL is set, on
// a real Postgres seeded with the same demo: config and schema from the catalog, paging, delta
// with removals, the user's query, datalists, account checks, and the conformance kit.
import { expectConformant } from '@weft/conformance/vitest';
import { type TestApp, testApp } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqlTablesApp } from '../src/app.js';
import { FINGERPRINT } from '../src/catalog-fingerprint.js';
import type { Queryable } from '../src/database.js';
import { ModelMemo } from '../src/model-memo.js';
import { PG_URL, type TestDatabase, pgliteDemo, postgresDemo } from './databases.js';

if (!PG_URL) console.log('sql-tables: the Postgres run is skipped because WEFT_TEST_DATABASE_URL is not set');

const runs = [
  { name: 'pglite', enabled: true, open: pgliteDemo },
  { name: 'postgres', enabled: Boolean(PG_URL), open: () => postgresDemo(PG_URL!) },
];

const VALIDATE_FILTER = '/api/v1/synchronizer/filter/validate';
const dayAgo = () => new Date(Date.now() - 24 * 3600 * 1000).toISOString();

for (const run of runs) {
  describe.runIf(run.enabled)(`sql-tables on ${run.name}`, () => {
    let db: TestDatabase;
    let app: TestApp;
    beforeAll(async () => {
      db = await run.open();
      // Small pages, so the demo's tables span several of them; no cache, so changes show at once.
      app = await testApp(createSqlTablesApp({ source: db.source, pageSize: 4, cacheSeconds: 0 }));
    }, 120_000);
    afterAll(async () => {
      await app?.close();
      await db?.close();
    });

    it('validates the account and refuses a schema that does not exist', async () => {
      const ok = await app.validate('database', db.account);
      expect(ok.status).toBe(200);
      expect(ok.body.name).toMatch(/\(/);
      const missing = await app.validate('database', { ...db.account, schemas: 'no_such_schema' });
      expect(missing.status).toBe(401);
      expect(missing.body.message).toBe('No schema named "no_such_schema" in the database');
    });

    it('lists the tables as types (not the deletions table), plus the query type', async () => {
      const config = await app.config(db.account);
      expect(config.status).toBe(200);
      expect(config.body.types.map((t: { id: string }) => t.id)).toEqual([
        'authors',
        'books',
        'favourites',
        'loans',
        'members',
        'query',
      ]);
      expect(config.body.types[0]).toEqual({
        id: 'authors',
        name: 'Authors',
        description: 'People who wrote the books',
      });
      expect(config.body.filters.map((f: { id: string; type: string }) => `${f.id}:${f.type}`)).toEqual([
        'schema:list',
        'tables:multidropdown',
        'query:highlightText',
      ]);
      expect(config.body.filters[2].editorMode).toBe('sql');
    });

    it('maps columns to the service’s field types, foreign keys to relations, enums to selects', async () => {
      const { status, body } = await app.schema(['books', 'members', 'favourites', 'loans'], {
        account: db.account,
      });
      expect(status).toBe(200);
      const books = body.books;
      expect(books.id).toMatchObject({ type: 'id' });
      expect(books.name).toMatchObject({ type: 'text', subType: 'title', name: 'Title' });
      expect(books.author_id).toMatchObject({
        type: 'text',
        name: 'Author',
        relation: {
          cardinality: 'many-to-one',
          targetType: 'authors',
          targetFieldId: 'id',
          targetName: 'Books',
        },
      });
      expect(books.genre).toMatchObject({ type: 'text', subType: 'single-select' });
      expect(books.genre.options.map((o: { name: string }) => o.name)).toEqual([
        'Fiction',
        'Science',
        'History',
        'Poetry',
        'Children',
      ]);
      expect(books.price).toMatchObject({ type: 'number', format: { format: 'Number', precision: 2 } });
      expect(books.pages).toMatchObject({ type: 'number', subType: 'integer' });
      expect(books.published).toMatchObject({ type: 'date', subType: 'day' });
      expect(books.updated_at).toEqual({ id: 'updated_at', name: 'Updated At', type: 'date' });
      expect(books.in_print).toMatchObject({ type: 'text', subType: 'boolean' });
      expect(books.tags).toMatchObject({ type: 'array[text]' });
      expect(books.__syncAction).toBeDefined();
      expect(body.members.id).toMatchObject({ type: 'id', name: 'Code' });
      expect(body.members.email).toMatchObject({ type: 'text', subType: 'email' });
      expect(body.members.home).toMatchObject({ type: 'text', subType: 'location' });
      expect(body.loans.status.options.map((o: { name: string }) => o.name)).toEqual([
        'Borrowed',
        'Returned',
        'Overdue',
      ]);
      // Relations are declared once, on the side holding the foreign key.
      expect(Object.values(body.authors ?? {}).some((f) => (f as { relation?: unknown }).relation)).toBe(
        false,
      );
      expect(body.favourites.member_code.relation).toMatchObject({
        targetType: 'members',
        targetName: 'Favourites',
      });
      expect(body.favourites.__syncAction).toBeUndefined();
    });

    it('reads every row once in key order, a page per query, following nextPageConfig', async () => {
      const first = await app.data('books', { account: db.account });
      expect(first.status).toBe(200);
      expect(first.body.items).toHaveLength(4);
      expect(first.body.pagination.hasNext).toBe(true);
      const books = await app.sync('books', { account: db.account });
      // 24 books, 2 withdrawn (soft-deleted): not in a full sync.
      expect(books.items.map((b) => b.id)).toEqual(
        Array.from({ length: 24 }, (_, i) => i + 1).filter((id) => id !== 7 && id !== 19),
      );
      expect(books.pages).toBe(6);
      expect(books.items[0]).toMatchObject({
        id: 1,
        name: 'Book 1: Stars and Dust',
        author_id: 2,
        genre: 'Science',
        price: 8.75,
        pages: 137,
        published: '1990-07-20',
        in_print: 'true',
        tags: ['new'],
        deleted_at: null,
      });
      expect(books.items[0]!.updated_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00$/);
      const members = await app.sync('members', { account: db.account });
      expect(members.items[0]).toMatchObject({
        id: 'M-001',
        name: 'Ines',
        home: JSON.stringify({ longitude: 13.41, latitude: 52.51 }),
      });
      const favourites = await app.sync('favourites', { account: db.account });
      expect(favourites.items[0]).toMatchObject({
        id: '["M-001",3]',
        name: 'Favourite M-001 / 3',
        member_code: 'M-001',
        book_id: 3,
      });
      expect(new Set(favourites.items.map((f) => f.id)).size).toBe(favourites.items.length);
    });

    it('a delta sync sends changed rows, soft deletes and recorded deletes as removals', async () => {
      const since = dayAgo();
      const books = await app.sync('books', { account: db.account, lastSynchronizedAt: since });
      expect(books.synchronizationType).toBe('delta');
      expect(books.items.map((b) => [b.id, b.__syncAction])).toEqual([
        [1, 'SET'],
        [3, 'SET'],
        [7, 'REMOVE'],
        [19, 'REMOVE'],
      ]);
      expect(books.items[1]).toMatchObject({ price: 9.99 });
      await db.sql('DELETE FROM loans WHERE id IN (8, 9, 10)');
      const loans = await app.sync('loans', { account: db.account, lastSynchronizedAt: since });
      // Removals come in the deletions table's order (row ids as text).
      expect([...loans.items].sort((a, b) => Number(a.id) - Number(b.id))).toEqual([
        { id: 2, __syncAction: 'REMOVE' },
        { id: 5, __syncAction: 'REMOVE' },
        { id: 8, __syncAction: 'REMOVE' },
        { id: 9, __syncAction: 'REMOVE' },
        { id: 10, __syncAction: 'REMOVE' },
      ]);
      // Four rows a page: the removals span two pages, resumed from the deletions table.
      expect(loans.pages).toBe(2);
    });

    it('filters by schema and tables, with datalists for both', async () => {
      const schemas = await app.datalist('schema', { account: db.account });
      expect(schemas.body.items).toEqual([
        { title: `${db.account.schemas} (6 tables)`, value: db.account.schemas },
      ]);
      const tables = await app.datalist('tables', {
        account: db.account,
        dependsOn: { schema: db.account.schemas },
      });
      expect(tables.body.items.map((i: { value: string }) => i.value)).toEqual([
        'authors',
        'books',
        'favourites',
        'loans',
        'members',
      ]);
      const only = { tables: ['authors'] };
      expect((await app.sync('authors', { account: db.account, filter: only })).items).toHaveLength(6);
      expect((await app.sync('books', { account: db.account, filter: only })).items).toHaveLength(0);
      const bad = await app.post(VALIDATE_FILTER, { account: db.account, filter: { tables: ['nope'] } });
      expect(bad.status).toBe(400);
      expect(bad.body.message).toBe('Filter "tables": there is no table "nope"');
    });

    it('syncs the user’s query, and its filter check never writes', async () => {
      const query =
        'SELECT b.id, b.title, a.name AS author, b.genre FROM books b JOIN authors a ON a.id = b.author_id WHERE b.price > 30 -- pricey';
      const ok = await app.post(VALIDATE_FILTER, { account: db.account, filter: { query } });
      expect(ok.status).toBe(204);
      const schema = await app.schema(['query'], { account: db.account, filter: { query } });
      expect(schema.body.query).toMatchObject({
        id: { type: 'id' },
        name: { type: 'text', subType: 'title', name: 'Title' },
        author: { type: 'text' },
        genre: { type: 'text', subType: 'single-select' },
      });
      const rows = await app.sync('query', { account: db.account, filter: { query } });
      // The query reads what it says: book 19 is soft-deleted, but the query does not ask.
      expect(rows.items.map((r) => r.id)).toEqual([19, 20, 21, 22, 23, 24]);
      expect(rows.items[1]).toEqual({
        id: 20,
        name: 'Book 20: The Quiet Sea',
        author: 'Mei Tanaka',
        genre: 'Fiction',
      });

      for (const [bad, message] of [
        ['DELETE FROM books', /syntax error/],
        ['SELECT id FROM books; DROP TABLE books', /syntax error/],
        ['WITH gone AS (DELETE FROM books RETURNING id) SELECT id FROM gone', /data-modifying statement/],
        ['SELECT title FROM books', /needs a column named "id"/],
        ['SELECT id, title AS id FROM books', /appears twice/],
        ['SELECT id FROM no_such_table', /no_such_table/],
      ] as const) {
        const answer = await app.post(VALIDATE_FILTER, { account: db.account, filter: { query: bad } });
        expect(answer.status, bad).toBe(400);
        expect(answer.body.message).toMatch(message);
      }
      // Passes the plan check but tries to write when it runs: refused by the read-only transaction.
      const writes = { query: "SELECT nextval('books_id_seq') AS id" };
      const page = await app.data('query', { account: db.account, filter: writes });
      expect(page.status).toBe(400);
      expect(page.body.message).toMatch(/read-only transaction|permission denied for sequence/);
      expect((await app.sync('books', { account: db.account })).items).toHaveLength(22);
    });

    it('refuses a cursor it did not produce, and a connection string that is not Postgres', async () => {
      const forged = await app.data('books', {
        account: db.account,
        pagination: { weft: 1, type: 'books', cursor: { p: 'elsewhere' }, skip: 0 },
      });
      expect(forged.status).toBe(400);
      const mysql = await app.validate('database', { url: 'mysql://root:hunter2@db.example/shop' });
      expect(mysql.status).toBe(401);
      expect(JSON.stringify(mysql.body)).not.toContain('hunter2');
      // Nobody listens on port 1: the database is unreachable, which is temporary.
      const down = await app.validate('database', {
        url: 'postgres://app@127.0.0.1:1/shop',
        password: 'hunter2',
      });
      expect(down.status).toBe(503);
      expect(down.body).toMatchObject({ tryLater: true });
      expect(JSON.stringify(down.body)).not.toContain('hunter2');
    });

    // PGlite has no passwords: this case exists only for the Postgres run.
    if (run.name === 'postgres')
      it('a wrong password is a 401 that does not repeat it', async () => {
        const url = new URL(db.account.url!);
        url.password = '';
        const wrong = await app.validate('database', {
          ...db.account,
          url: url.toString(),
          password: 'not-the-password',
        });
        expect(wrong.status, JSON.stringify(wrong.body)).toBe(401);
        expect(wrong.body.message).toMatch(/password authentication failed/);
        expect(JSON.stringify(wrong.body)).not.toContain('not-the-password');
        // The right password given apart from the connection string works.
        const password = decodeURIComponent(new URL(db.account.url!).password);
        if (password) {
          const right = await app.validate('database', { ...db.account, url: url.toString(), password });
          expect(right.status).toBe(200);
        }
      });

    it('sees a changed table at the very next request, though the models are reused while the catalog stays the same', async () => {
      const database = await db.source.open(db.account);
      const schemas = [db.account.schemas!];
      const fingerprint = async () =>
        (await database.query<{ fingerprint: string }>(FINGERPRINT, [schemas])).rows[0]!.fingerprint;
      const types = async () => (await app.config(db.account)).body.types.map((t: { id: string }) => t.id);
      const shelves = async () => (await app.schema(['shelves'], { account: db.account })).body.shelves;
      const before = await fingerprint();
      expect(before).toMatch(/^[0-9a-f]{64}$/);
      // Statistics are updated in place: not a change of the types, so not of the fingerprint.
      await db.sql('ANALYZE books');
      expect(await fingerprint()).toBe(before);
      expect(await types()).not.toContain('shelves');

      await db.sql(`CREATE TYPE shelf_kind AS ENUM ('wall')`);
      await db.sql('CREATE TABLE shelves (id integer PRIMARY KEY, label text)');
      expect(await fingerprint()).not.toBe(before);
      expect(await types()).toContain('shelves');
      expect(Object.keys(await shelves())).toEqual(['id', 'name']);
      await db.sql('ALTER TABLE shelves ADD COLUMN kind shelf_kind');
      await db.sql(`INSERT INTO shelves VALUES (1, 'Top', 'wall')`);
      expect((await shelves()).kind).toMatchObject({ subType: 'single-select', options: [{ name: 'wall' }] });
      expect((await app.data('shelves', { account: db.account })).body.items).toEqual([
        { id: 1, name: 'Top', kind: 'wall' },
      ]);
      await db.sql(`ALTER TYPE shelf_kind ADD VALUE 'corner'`);
      expect((await shelves()).kind.options).toEqual([{ name: 'wall' }, { name: 'corner' }]);
      await db.sql(`COMMENT ON COLUMN shelves.kind IS 'Where it stands'`);
      expect((await shelves()).kind.description).toBe('Where it stands');
      await db.sql('ALTER TABLE shelves RENAME COLUMN kind TO placement');
      expect(Object.keys(await shelves())).toEqual(['id', 'name', 'placement']);
      expect((await app.data('shelves', { account: db.account })).body.items).toEqual([
        { id: 1, name: 'Top', placement: 'wall' },
      ]);
      // Without a primary key the table is no longer a type.
      await db.sql('ALTER TABLE shelves DROP CONSTRAINT shelves_pkey');
      expect(await types()).not.toContain('shelves');
      await db.sql('DROP TABLE shelves');
      await db.sql('DROP TYPE shelf_kind');
      expect(await types()).toEqual(['authors', 'books', 'favourites', 'loans', 'members', 'query']);
    });

    it('reads the full catalog only when its fingerprint changed', async () => {
      const database = await db.source.open(db.account);
      const schemas = [db.account.schemas!];
      const asked: string[] = [];
      // The real database, noting which of the two catalog queries each call is.
      const noting: Queryable = {
        query: <R>(sql: string, params?: unknown[]) => {
          asked.push(sql === FINGERPRINT ? 'fingerprint' : 'catalog');
          return database.query<R>(sql, params);
        },
        queryArrays: (sql, params) => database.queryArrays(sql, params),
      };
      const memo = new ModelMemo();
      const first = await memo.models(noting, schemas);
      expect(asked).toEqual(['catalog']);
      expect(await memo.models(noting, schemas)).toBe(first);
      expect(asked).toEqual(['catalog', 'fingerprint']);
      await db.sql('CREATE TABLE shelves (id integer PRIMARY KEY)');
      const second = await memo.models(noting, schemas);
      expect(asked).toEqual(['catalog', 'fingerprint', 'fingerprint', 'catalog']);
      expect(second.map((m) => m.typeId)).toContain('shelves');
      await db.sql('DROP TABLE shelves');
      // Back to the very rows of the first catalog (the table's rows are gone, no other row was
      // rewritten): the same fingerprint, so the first models again.
      expect(await memo.models(noting, schemas)).toBe(first);
      expect(asked.slice(4)).toEqual(['fingerprint']);
    });

    it('passes the conformance kit without a warning, with and without the query', async () => {
      for (const filter of [{}, { query: 'SELECT code AS id, name, email FROM members' }]) {
        const report = await expectConformant(app.url, { account: db.account, filter, strict: true });
        expect(report.summary.warned, JSON.stringify(report.checks.filter((c) => c.status === 'warn'))).toBe(
          0,
        );
        expect(report.sync.books?.count).toBe(22);
        expect(report.sync.favourites?.relationCoverage.book_id).toMatchObject({
          total: report.sync.favourites?.relationCoverage.book_id?.resolved,
        });
      }
    }, 120_000);
  });
}
