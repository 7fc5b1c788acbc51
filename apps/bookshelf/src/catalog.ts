// The app's "upstream": a catalog client with offset paging, shaped like a small REST API.
// `embeddedCatalog()` serves the generated dataset in-process; a real deployment implements the
// same `Catalog` interface over HTTP (e.g. with `createUpstream` from @weft/core) and passes it
// to `createBookshelfApp({ catalog })`.
import { type Author, type Book, type Dataset, type Deletion, type Genre, dataset } from './dataset.js';

export type { Author, Book, Deletion, Genre } from './dataset.js';

/** One page of a listing. `nextOffset` is null on the last page. */
export interface Page<T> {
  items: T[];
  total: number;
  nextOffset: number | null;
}

export interface PublishedRange {
  /** Inclusive lower bound, ISO 8601 (only the day is used). */
  _min?: string;
  /** Inclusive upper bound, ISO 8601 (only the day is used). */
  _max?: string;
}

export interface BookQuery {
  offset: number;
  limit: number;
  /** Only books of this genre id. */
  genre?: string | undefined;
  /** Only books by one of these author ids (none or empty: any author). */
  authors?: readonly string[] | undefined;
  /** Only books published in this range of days. */
  published?: PublishedRange | undefined;
  /** Only books changed at or after this instant. */
  updatedSince?: Date | undefined;
}

export interface AuthorQuery {
  offset: number;
  limit: number;
  /** Only authors with at least one book in this genre. */
  genre?: string | undefined;
  /** Only these author ids. */
  ids?: readonly string[] | undefined;
}

export interface DeletionQuery {
  offset: number;
  limit: number;
  /** Only books deleted at or after this instant. */
  since?: Date | undefined;
}

/** What the app needs from a library service. Every call may reject (network, rate limit, ...). */
export interface Catalog {
  listGenres(options?: { signal?: AbortSignal }): Promise<Genre[]>;
  listAuthors(query: AuthorQuery, options?: { signal?: AbortSignal }): Promise<Page<Author>>;
  listBooks(query: BookQuery, options?: { signal?: AbortSignal }): Promise<Page<Book>>;
  /** Ids of books removed from the catalog, oldest first. */
  listDeletions(query: DeletionQuery, options?: { signal?: AbortSignal }): Promise<Page<Deletion>>;
}

/** The embedded dataset behind the `Catalog` interface. */
export function embeddedCatalog(data: Dataset = dataset()): Catalog {
  const genresByAuthor = new Map<string, Set<string>>();
  for (const book of data.books) {
    const set = genresByAuthor.get(book.authorId) ?? new Set<string>();
    set.add(book.genreId);
    genresByAuthor.set(book.authorId, set);
  }
  return {
    async listGenres() {
      return data.genres.map((g) => ({ ...g }));
    },
    async listAuthors(query) {
      const ids = query.ids && query.ids.length > 0 ? new Set(query.ids) : undefined;
      const genre = query.genre;
      return slice(
        data.authors.filter(
          (a) => (!ids || ids.has(a.id)) && (!genre || (genresByAuthor.get(a.id)?.has(genre) ?? false)),
        ),
        query,
      );
    },
    async listBooks(query) {
      const authors = query.authors && query.authors.length > 0 ? new Set(query.authors) : undefined;
      const minDay = query.published?._min?.slice(0, 10);
      const maxDay = query.published?._max?.slice(0, 10);
      const since = query.updatedSince?.getTime();
      return slice(
        data.books.filter(
          (b) =>
            (!query.genre || b.genreId === query.genre) &&
            (!authors || authors.has(b.authorId)) &&
            (!minDay || b.published >= minDay) &&
            (!maxDay || b.published <= maxDay) &&
            (since === undefined || Date.parse(b.updatedAt) >= since),
        ),
        query,
      );
    },
    async listDeletions(query) {
      const since = query.since?.getTime();
      return slice(
        data.deletions.filter((d) => since === undefined || Date.parse(d.deletedAt) >= since),
        query,
      );
    },
  };
}

function slice<T>(all: T[], { offset, limit }: { offset: number; limit: number }): Page<T> {
  const items = all.slice(offset, offset + limit).map((item) => structuredClone(item));
  const end = offset + items.length;
  return { items, total: all.length, nextOffset: end < all.length ? end : null };
}
