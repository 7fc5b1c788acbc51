// Bookshelf: a public integration app that syncs a library (genres, authors, books) into the
// workspace, with datalist filters, a date-range filter, resumable paging and delta sync.
import {
  InvalidFilterError,
  type JsonValue,
  auth,
  defineApp,
  field,
  input,
  remove,
  resume,
} from '@weft/core';
import { type Author, type Book, type Catalog, type PublishedRange, embeddedCatalog } from './catalog.js';
import { TAGS } from './dataset.js';

/** Items per page sent to the service. */
export const PAGE_SIZE = 500;
/** Items per catalog request; the handler yields a resume point after each. */
export const UPSTREAM_PAGE = 100;

export interface BookshelfOptions {
  /** Where the library comes from; default the embedded, generated dataset. */
  catalog?: Catalog;
  /** Items per page sent to the service; default {@link PAGE_SIZE}. */
  pageSize?: number;
}

/** The filter values as the handlers receive them. */
interface BookFilter {
  genre?: string;
  author?: string[];
  published?: PublishedRange;
}

export function createBookshelfApp(options: BookshelfOptions = {}) {
  const catalog = options.catalog ?? embeddedCatalog();

  /** Rejects filters the catalog cannot answer: 400 with a message naming the filter. */
  async function checkFilter(filter: BookFilter, signal: AbortSignal): Promise<void> {
    const { _min, _max } = filter.published ?? {};
    for (const [key, value] of [
      ['_min', _min],
      ['_max', _max],
    ] as const) {
      if (value !== undefined && Number.isNaN(Date.parse(value))) {
        throw new InvalidFilterError(`Filter "published": ${key} "${value}" is not a date`);
      }
    }
    if (_min !== undefined && _max !== undefined && Date.parse(_min) > Date.parse(_max)) {
      throw new InvalidFilterError(`Filter "published": the start (${_min}) is after the end (${_max})`);
    }
    if (filter.genre !== undefined) {
      const genres = await catalog.listGenres({ signal });
      if (!genres.some((g) => g.id === filter.genre)) {
        throw new InvalidFilterError(`Filter "genre": "${filter.genre}" is not a genre of this library`);
      }
    }
    const wanted = filter.author ?? [];
    if (wanted.length > 0) {
      const found = await catalog.listAuthors({ offset: 0, limit: wanted.length, ids: wanted }, { signal });
      const known = new Set(found.items.map((a) => a.id));
      const unknown = wanted.filter((id) => !known.has(id));
      if (unknown.length > 0) {
        throw new InvalidFilterError(`Filter "author": unknown author id(s) ${unknown.join(', ')}`);
      }
    }
  }

  return defineApp({
    id: 'bookshelf',
    name: 'Bookshelf',
    version: '1.0.0',
    description: 'Syncs a public library catalog: genres, authors and books, with delta updates.',
    website: 'https://github.com/weft/weft/tree/main/apps/bookshelf',
    logo: {
      svg: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path fill="#7a4b2a" d="M4 3h4v18H4zM9 3h4v18H9zM14.5 4l3.9-1 3.6 17.5-3.9.9z"/></svg>',
    },
    authentication: [auth.none({ name: 'Public library', description: 'No account needed' })],
    pageSize: options.pageSize ?? PAGE_SIZE,
    sync: {
      filters: {
        genre: input.list({
          name: 'Genre',
          description: 'Only books of this genre',
          datalist: true,
          optional: true,
        }),
        author: input.multidropdown({
          name: 'Authors',
          description: 'Only books by these authors',
          datalist: true,
          dependsOn: ['genre'],
          optional: true,
        }),
        published: input.date({
          name: 'Published',
          description: 'Only books published in this range, e.g. "between 1990 and 1999"',
          optional: true,
        }),
      },
      datalists: {
        genre: async ({ signal }) =>
          (await catalog.listGenres({ signal })).map((g) => ({ title: g.name, value: g.id })),
        author: async ({ dependsOn, signal }) => {
          const genre =
            typeof dependsOn.genre === 'string' && dependsOn.genre !== '' ? dependsOn.genre : undefined;
          const authors: Author[] = [];
          for (let offset: number | null = 0; offset !== null; ) {
            const page = await catalog.listAuthors({ offset, limit: UPSTREAM_PAGE, genre }, { signal });
            authors.push(...page.items);
            offset = page.nextOffset;
          }
          return authors
            .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id))
            .map((a) => ({ title: `${a.name} (${a.id})`, value: a.id }));
        },
      },
      validateFilter: ({ filter, signal }) => checkFilter(filter, signal),
      types: {
        genre: {
          name: 'Genres',
          fields: {
            id: field.id(),
            name: field.title({ name: 'Name' }),
            description: field.text(),
          },
          async *data({ signal }) {
            for (const g of await catalog.listGenres({ signal }))
              yield { id: g.id, name: g.name, description: g.description };
          },
        },
        author: {
          name: 'Authors',
          fields: {
            id: field.id(),
            name: field.title({ name: 'Name' }),
            born: field.integer({ name: 'Born' }),
            country: field.text(),
            mainGenre: field.relation({
              to: 'genre',
              cardinality: 'many-to-one',
              targetName: 'Main Authors',
            }),
            bio: field.markdown(),
            website: field.url(),
            updatedAt: field.date({ name: 'Updated At' }),
          },
          // Authors follow the genre and author filters, so every synced book's author is synced.
          async *data({ filter, cursor, signal }) {
            for (let offset: number | null = readOffset(cursor); offset !== null; ) {
              const page = await catalog.listAuthors(
                { offset, limit: UPSTREAM_PAGE, genre: filter.genre, ids: filter.author },
                { signal },
              );
              for (const a of page.items) {
                yield {
                  id: a.id,
                  name: a.name,
                  born: a.born,
                  country: a.country,
                  mainGenre: a.genre,
                  bio: a.bio,
                  website: a.website,
                  updatedAt: a.updatedAt,
                };
              }
              offset = page.nextOffset;
              if (offset !== null) yield resume({ offset });
            }
          },
        },
        book: {
          name: 'Books',
          delta: true,
          fields: {
            id: field.id(),
            name: field.title({ name: 'Title' }),
            isbn: field.text({ name: 'ISBN' }),
            author: field.relation({ to: 'author', cardinality: 'many-to-one', targetName: 'Books' }),
            genre: field.relation({ to: 'genre', cardinality: 'many-to-one', targetName: 'Books' }),
            published: field.day(),
            pages: field.integer(),
            rating: field.number({ precision: 1 }),
            tags: field.multiSelect({ options: TAGS.map((name) => ({ name })) }),
            cover: field.url({ name: 'Cover' }),
            description: field.markdown(),
            updatedAt: field.date({ name: 'Updated At' }),
          },
          async *data({ filter, cursor, mode, since, signal }) {
            const updatedSince = mode === 'delta' && since ? since : undefined;
            let { phase, offset } = readBookCursor(cursor);
            // Phase 1: books (in a delta sync, those changed since `since`), an upstream page at a time.
            while (phase === 'books' && offset !== null) {
              const page = await catalog.listBooks(
                {
                  offset,
                  limit: UPSTREAM_PAGE,
                  genre: filter.genre,
                  authors: filter.author,
                  published: filter.published,
                  updatedSince,
                },
                { signal },
              );
              for (const book of page.items) yield toItem(book);
              offset = page.nextOffset;
              if (offset !== null) yield resume({ phase, offset });
            }
            if (!updatedSince) return;
            // Phase 2 (delta only): books deleted since `since`. A deletion carries no genre or
            // author, so removals are sent whatever the filter; removing an absent row is harmless.
            if (phase === 'books') {
              phase = 'removed';
              offset = 0;
              yield resume({ phase, offset });
            }
            while (offset !== null) {
              const page = await catalog.listDeletions(
                { offset, limit: UPSTREAM_PAGE, since: updatedSince },
                { signal },
              );
              for (const deletion of page.items) yield remove(deletion.id);
              offset = page.nextOffset;
              if (offset !== null) yield resume({ phase, offset });
            }
          },
        },
      },
    },
  });
}

/** A book of the catalog as the service receives it (also the hand-written baseline's mapping in core's bench). */
export function toItem(book: Book) {
  return {
    id: book.id,
    name: book.title,
    isbn: book.isbn,
    author: book.authorId,
    genre: book.genreId,
    published: book.published,
    pages: book.pages,
    rating: book.rating,
    tags: book.tags,
    cover: book.cover,
    description: book.description,
    updatedAt: book.updatedAt,
  };
}

function readOffset(cursor: JsonValue | undefined): number {
  const offset = isRecord(cursor) ? cursor.offset : undefined;
  return typeof offset === 'number' && Number.isInteger(offset) && offset >= 0 ? offset : 0;
}

function readBookCursor(cursor: JsonValue | undefined): {
  phase: 'books' | 'removed';
  offset: number | null;
} {
  const phase = isRecord(cursor) && cursor.phase === 'removed' ? 'removed' : 'books';
  return { phase, offset: readOffset(cursor) };
}

function isRecord(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The app on its embedded dataset. */
export const bookshelfApp = createBookshelfApp();
export default bookshelfApp;
