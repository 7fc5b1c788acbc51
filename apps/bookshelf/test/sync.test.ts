// Full, filtered and delta syncs of the bookshelf app, over real HTTP.
import { type TestApp, testApp } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bookshelfApp, createBookshelfApp, PAGE_SIZE } from '../src/app.js';
import { AUTHOR_COUNT, BOOK_COUNT, dataset, GENRES, REFERENCE_DATE } from '../src/dataset.js';

type Item = Record<string, any>;

let app: TestApp;
beforeAll(async () => {
  app = await testApp(bookshelfApp);
});
afterAll(async () => {
  await app.close();
});

const ids = (items: Item[]) => items.map((i) => i.id as string);

describe('bookshelf: full sync', () => {
  it('syncs all 3,000 books in 6 pages of 500, each author among the synced authors', async () => {
    const books = await app.sync<Item>('book');
    expect(books.synchronizationType).toBe('full');
    expect(books.items).toHaveLength(BOOK_COUNT);
    expect(books.pages).toBe(BOOK_COUNT / PAGE_SIZE);
    expect(new Set(ids(books.items)).size).toBe(BOOK_COUNT);
    expect(ids(books.items)).toEqual(dataset().books.map((b) => b.id));

    const authors = await app.sync<Item>('author');
    expect(authors.items).toHaveLength(AUTHOR_COUNT);
    const genres = await app.sync<Item>('genre');
    expect(genres.items).toHaveLength(GENRES.length);

    const authorIds = new Set(ids(authors.items));
    const genreIds = new Set(ids(genres.items));
    for (const book of books.items) {
      expect(authorIds.has(book.author)).toBe(true);
      expect(genreIds.has(book.genre)).toBe(true);
    }
    for (const author of authors.items) expect(genreIds.has(author.mainGenre)).toBe(true);
  });

  it('sends well-typed items', async () => {
    const { body } = await app.data('book');
    expect(body.items).toHaveLength(PAGE_SIZE);
    expect(body.pagination.hasNext).toBe(true);
    for (const book of body.items as Item[]) {
      expect(book.id).toMatch(/^b-\d{4}$/);
      expect(book.isbn).toMatch(/^97[89]\d{10}$/);
      expect(book.published).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(Number.isInteger(book.pages)).toBe(true);
      expect(book.rating).toBeGreaterThanOrEqual(1);
      expect(book.rating).toBeLessThanOrEqual(5);
      expect(Array.isArray(book.tags)).toBe(true);
      expect(book.cover).toMatch(/^https:\/\//);
      expect(Date.parse(book.updatedAt)).toBeLessThanOrEqual(REFERENCE_DATE.getTime());
      expect(book.__syncAction).toBeUndefined();
    }
  });

  it('is stateless: pages alternate between two replicas and add up to the same books', async () => {
    const replica = await testApp(createBookshelfApp());
    try {
      const servers = [app, replica];
      const items: Item[] = [];
      let pagination: unknown = null;
      for (let page = 0; ; page++) {
        const res = await servers[page % 2]!.data('book', { pagination });
        expect(res.status).toBe(200);
        items.push(...res.body.items);
        if (!res.body.pagination.hasNext) break;
        pagination = res.body.pagination.nextPageConfig;
      }
      expect(ids(items)).toEqual(dataset().books.map((b) => b.id));
    } finally {
      await replica.close();
    }
  });

  it('rejects a nextPageConfig of another type with 400', async () => {
    const first = await app.data('book');
    const res = await app.data('author', { pagination: first.body.pagination.nextPageConfig });
    expect(res.status).toBe(400);
    expect(typeof res.body.message).toBe('string');
  });
});

describe('bookshelf: filters', () => {
  const { books } = dataset();

  it('narrows books to a genre, and authors to those writing in it', async () => {
    const result = await app.sync<Item>('book', { filter: { genre: 'horror' } });
    const expected = books.filter((b) => b.genreId === 'horror');
    expect(expected.length).toBeGreaterThan(0);
    expect(ids(result.items)).toEqual(expected.map((b) => b.id));

    const authors = await app.sync<Item>('author', { filter: { genre: 'horror' } });
    const authorIds = new Set(ids(authors.items));
    expect(authorIds).toEqual(new Set(expected.map((b) => b.authorId)));
  });

  it('narrows books and authors to a list of authors', async () => {
    const filter = { author: ['a-007', 'a-042', 'a-300'] };
    const result = await app.sync<Item>('book', { filter });
    const expected = books.filter((b) => filter.author.includes(b.authorId));
    expect(expected.length).toBeGreaterThan(0);
    expect(ids(result.items)).toEqual(expected.map((b) => b.id));
    const authors = await app.sync<Item>('author', { filter });
    expect(ids(authors.items)).toEqual(filter.author);
  });

  it('accepts a single author sent as a string', async () => {
    const result = await app.sync<Item>('book', { filter: { author: 'a-007' } });
    expect(result.items.every((b) => b.author === 'a-007')).toBe(true);
    expect(result.items.length).toBe(books.filter((b) => b.authorId === 'a-007').length);
  });

  it('narrows books to a published range (inclusive days)', async () => {
    const published = { _min: '1990-01-01T00:00:00.000', _max: '1999-12-31T23:59:59.999' };
    const result = await app.sync<Item>('book', { filter: { published } });
    const expected = books.filter((b) => b.published >= '1990-01-01' && b.published <= '1999-12-31');
    expect(expected.length).toBeGreaterThan(0);
    expect(ids(result.items)).toEqual(expected.map((b) => b.id));
  });

  it('handles open-ended ranges', async () => {
    const from = await app.sync<Item>('book', { filter: { published: { _min: '2020-06-01T00:00:00.000' } } });
    expect(from.items.length).toBe(books.filter((b) => b.published >= '2020-06-01').length);
    const to = await app.sync<Item>('book', { filter: { published: { _max: '1955-12-31T23:59:59.999' } } });
    expect(to.items.length).toBe(books.filter((b) => b.published <= '1955-12-31').length);
  });

  it('combines the filters', async () => {
    const genre = 'fantasy';
    const author = [...new Set(books.filter((b) => b.genreId === genre).map((b) => b.authorId))].slice(0, 5);
    const published = { _min: '1970-01-01T00:00:00.000' };
    const result = await app.sync<Item>('book', { filter: { genre, author, published } });
    const expected = books.filter(
      (b) => b.genreId === genre && author.includes(b.authorId) && b.published >= '1970-01-01',
    );
    expect(ids(result.items)).toEqual(expected.map((b) => b.id));
  });

  it('answers a filter matching nothing with one empty page', async () => {
    const result = await app.sync<Item>('book', {
      filter: { published: { _min: '2100-01-01T00:00:00.000' } },
    });
    expect(result).toMatchObject({ items: [], pages: 1 });
  });
});

describe('bookshelf: delta sync', () => {
  const { books, deletions } = dataset();
  const DAY = 86_400_000;
  const lastSynchronizedAt = new Date(REFERENCE_DATE.getTime() - 7 * DAY);
  // Core asks for changes since lastSynchronizedAt minus the default 2-hour safety margin.
  const since = lastSynchronizedAt.getTime() - 2 * 3_600_000;
  const changed = books.filter((b) => Date.parse(b.updatedAt) >= since).map((b) => b.id);
  const removed = deletions.filter((d) => Date.parse(d.deletedAt) >= since).map((d) => d.id);

  it('sends only books changed since the last sync, then REMOVE rows for deletions', async () => {
    expect(changed.length).toBeGreaterThan(0);
    expect(changed.length).toBeLessThan(BOOK_COUNT / 2);
    expect(removed.length).toBeGreaterThan(0);
    const result = await app.sync<Item>('book', { lastSynchronizedAt: lastSynchronizedAt.toISOString() });
    expect(result.synchronizationType).toBe('delta');
    const sets = result.items.filter((i) => i.__syncAction === 'SET');
    const removes = result.items.filter((i) => i.__syncAction === 'REMOVE');
    expect(sets.length + removes.length).toBe(result.items.length);
    expect(ids(sets)).toEqual(changed);
    expect(removes).toEqual(removed.map((id) => ({ id, __syncAction: 'REMOVE' })));
    for (const book of sets) expect(Date.parse(book.updatedAt)).toBeGreaterThanOrEqual(since);
  });

  it('pages through books and removals with small pages and the same result', async () => {
    const small = await testApp(createBookshelfApp({ pageSize: 37 }));
    try {
      const result = await small.sync<Item>('book', { lastSynchronizedAt: lastSynchronizedAt.toISOString() });
      expect(result.pages).toBe(Math.ceil((changed.length + removed.length) / 37));
      expect(ids(result.items)).toEqual([...changed, ...removed]);
    } finally {
      await small.close();
    }
  });

  it('applies filters to changed books in a delta sync', async () => {
    const result = await app.sync<Item>('book', {
      lastSynchronizedAt: lastSynchronizedAt.toISOString(),
      filter: { genre: 'travel' },
    });
    const sets = result.items.filter((i) => i.__syncAction === 'SET');
    expect(sets.every((b) => b.genre === 'travel')).toBe(true);
    expect(ids(sets)).toEqual(
      books.filter((b) => b.genreId === 'travel' && Date.parse(b.updatedAt) >= since).map((b) => b.id),
    );
  });

  it('keeps authors a full sync even when lastSynchronizedAt is sent', async () => {
    const result = await app.sync<Item>('author', { lastSynchronizedAt: lastSynchronizedAt.toISOString() });
    expect(result.synchronizationType).toBe('full');
    expect(result.items).toHaveLength(AUTHOR_COUNT);
  });

  it('sends an empty delta when nothing changed since the last sync', async () => {
    const result = await app.sync<Item>('book', { lastSynchronizedAt: '2026-06-01T00:00:00.000Z' });
    expect(result).toMatchObject({ items: [], synchronizationType: 'delta' });
  });
});
