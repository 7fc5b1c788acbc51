import { describe, expect, it } from 'vitest';
import { embeddedCatalog } from '../src/catalog.js';
import {
  AUTHOR_COUNT,
  BOOK_COUNT,
  DELETED_BOOK_COUNT,
  dataset,
  REFERENCE_DATE,
  seededRandom,
} from '../src/dataset.js';

describe('bookshelf: embedded dataset', () => {
  it('is deterministic: the same seed gives the same sequence', () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const first = Array.from({ length: 5 }, a);
    expect(Array.from({ length: 5 }, b)).toEqual(first);
    expect(first.every((x) => x >= 0 && x < 1)).toBe(true);
  });

  it('has a stable fingerprint', () => {
    const { books, authors } = dataset();
    // Pinned so that any change to the generator is a deliberate one.
    expect(books[0]).toMatchObject({ id: 'b-0001', title: 'The Secret Letters', authorId: 'a-126' });
    expect(authors).toHaveLength(AUTHOR_COUNT);
  });

  it('holds 3,000 books, 40 logged deletions, all within 60 days before the reference date', () => {
    const { books, deletions } = dataset();
    expect(books).toHaveLength(BOOK_COUNT);
    expect(deletions).toHaveLength(DELETED_BOOK_COUNT);
    const present = new Set(books.map((b) => b.id));
    const oldest = REFERENCE_DATE.getTime() - 60 * 86_400_000;
    for (const d of deletions) {
      expect(present.has(d.id)).toBe(false);
      expect(Date.parse(d.deletedAt)).toBeGreaterThanOrEqual(oldest);
    }
    for (const b of books) {
      const t = Date.parse(b.updatedAt);
      expect(t).toBeGreaterThanOrEqual(oldest);
      expect(t).toBeLessThanOrEqual(REFERENCE_DATE.getTime());
    }
  });

  it('serves offset pages with nextOffset', async () => {
    const catalog = embeddedCatalog();
    const first = await catalog.listBooks({ offset: 0, limit: 100 });
    expect(first).toMatchObject({ total: BOOK_COUNT, nextOffset: 100 });
    const last = await catalog.listBooks({ offset: 2_950, limit: 100 });
    expect(last.items).toHaveLength(50);
    expect(last.nextOffset).toBeNull();
  });
});
