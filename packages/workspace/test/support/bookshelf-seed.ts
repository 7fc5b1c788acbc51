import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { type Harness, typeArgs } from './databases.js';

// A small bookshelf in the workspace, made through its own schema and entity commands, shaped like
// what syncing apps/bookshelf produces: authors, books with a to-one author relation (and its
// collection partner), a page count, a rich-text summary, and comments on books.

export const AUTHOR = 'bookshelf/author';
export const BOOK = 'bookshelf/book';

export interface Seeded {
  authors: string[];
  books: string[];
}

export async function seedBookshelf(h: Harness, bookCount = 3): Promise<Seeded> {
  const relation = randomUUID();
  const results = await h.commands([
    { command: 'schema.type/create', args: typeArgs(AUTHOR, [['bookshelf/country', 'svc/text']]) },
    {
      command: 'schema.type/create',
      args: typeArgs(BOOK, [
        ['bookshelf/pages', 'svc/int'],
        ['bookshelf/author', AUTHOR, { 'svc/relation': relation }],
        ['bookshelf/summary', 'Collaboration~Documents/Document', { 'svc/entity-component?': true }],
      ]),
    },
    {
      command: 'schema.field/create',
      args: {
        'svc/holder-type': AUTHOR,
        'svc/name': 'bookshelf/books',
        'svc/type': BOOK,
        'svc/meta': { 'svc/relation': relation, 'svc/collection?': true },
      },
    },
    { command: 'svc.app/install-mixins', args: { types: { [BOOK]: ['comments/comments-mixin'] } } },
  ]);
  expect(results.map((r) => r.error?.message ?? 'ok')).toEqual(['ok', 'ok', 'ok', 'ok']);
  const authors: string[] = [];
  for (const [name, country] of [
    ['Ursula K. Le Guin', 'US'],
    ['Stanisław Lem', 'PL'],
  ] as const) {
    authors.push(
      (
        await h.run('svc.entity/create', {
          type: AUTHOR,
          entity: { 'bookshelf/name': name, 'bookshelf/country': country },
        })
      )['svc/id'],
    );
  }
  const books: string[] = [];
  for (let i = 0; i < bookCount; i++) {
    const book = await h.run('svc.entity/create', {
      type: BOOK,
      entity: {
        'bookshelf/name': i === 0 ? 'The Dispossessed' : `Book <${i}>`,
        'bookshelf/pages': 100 + i,
        'bookshelf/author': { 'svc/id': authors[i % 2] },
      },
    });
    books.push(book['svc/id']);
  }
  // The first book's summary, as rich text (with markup that must not reach the page as HTML).
  const [withSecret] = await h.run('svc.entity/query', {
    query: {
      'q/from': BOOK,
      'q/select': [{ 'bookshelf/summary': ['Collaboration~Documents/secret'] }],
      'q/where': ['=', ['svc/id'], '$id'],
    },
    params: { $id: books[0] },
  });
  const secret = withSecret['bookshelf/summary']['Collaboration~Documents/secret'];
  const put = await h.request('PUT', `/api/documents/${secret}?format=md`, {
    content:
      '# An ambiguous utopia\n\nA **physicist** travels.\n\n<script>alert(1)</script>\n\n[bad](javascript:alert(1))',
  });
  expect(put.status).toBe(200);
  return { authors, books };
}

export async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
