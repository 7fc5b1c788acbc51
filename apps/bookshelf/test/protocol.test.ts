// Descriptor, config, schema and datalists of the bookshelf app, over real HTTP.
import { type TestApp, testApp } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bookshelfApp } from '../src/app.js';
import { dataset, GENRES } from '../src/dataset.js';

let app: TestApp;
beforeAll(async () => {
  app = await testApp(bookshelfApp);
});
afterAll(async () => {
  await app.close();
});

describe('bookshelf: descriptor and configuration', () => {
  it('describes a public integration app', async () => {
    const { status, body } = await app.descriptor();
    expect(status).toBe(200);
    expect(body).toMatchObject({
      id: 'bookshelf',
      name: 'Bookshelf',
      version: '1.0.0',
      sources: [],
      responsibleFor: { dataSynchronization: true },
      authentication: [{ id: 'none', name: 'Public library' }],
    });
    expect(body.authentication[0].fields).toBeUndefined();
    expect(typeof body.website).toBe('string');
    expect(typeof body.description).toBe('string');
  });

  it('validates the empty account of auth.none()', async () => {
    const { status, body } = await app.validate('none', {});
    expect(status).toBe(200);
    expect(body).toEqual({ name: 'Public library' });
  });

  it('serves an SVG logo', async () => {
    const res = await app.request('GET', '/logo');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('image/svg+xml');
  });

  it('lists three types and the genre, author and published filters', async () => {
    const { status, body } = await app.config();
    expect(status).toBe(200);
    expect(body.types).toEqual([
      { id: 'genre', name: 'Genres' },
      { id: 'author', name: 'Authors' },
      { id: 'book', name: 'Books' },
    ]);
    expect(body.filters).toEqual([
      { id: 'genre', title: 'Genre', type: 'list', optional: true, datalist: true },
      {
        id: 'author',
        title: 'Authors',
        type: 'multidropdown',
        optional: true,
        datalist: true,
        datalist_requires: ['genre'],
      },
      { id: 'published', title: 'Published', type: 'date', optional: true },
    ]);
  });

  it('answers the schema of every requested type, relations declared once on the many side', async () => {
    const { status, body } = await app.schema(['genre', 'author', 'book']);
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(['genre', 'author', 'book']);
    for (const type of Object.values(body) as Record<string, any>[]) {
      expect(type.id).toMatchObject({ id: 'id', type: 'id' });
      expect(type.name).toMatchObject({ id: 'name', type: 'text' });
    }
    const book = body.book;
    expect(book.author.relation).toEqual({
      cardinality: 'many-to-one',
      name: 'Author',
      targetType: 'author',
      targetName: 'Books',
      targetFieldId: 'id',
    });
    expect(book.genre.relation).toMatchObject({ targetType: 'genre', cardinality: 'many-to-one' });
    expect(book.published).toMatchObject({ type: 'date', subType: 'day' });
    expect(book.pages).toMatchObject({ type: 'number', subType: 'integer' });
    expect(book.rating).toMatchObject({ type: 'number' });
    expect(book.tags).toMatchObject({ type: 'array[text]', subType: 'multi-select' });
    expect(book.cover).toMatchObject({ type: 'text', subType: 'url' });
    expect(book.description).toMatchObject({ type: 'text', subType: 'md' });
    expect(book.__syncAction).toMatchObject({ type: 'text' });
    // Only books support delta; nothing points back from author or genre to book.
    expect(body.author.__syncAction).toBeUndefined();
    const relationsToBook = Object.values(body)
      .flatMap((t) => Object.values(t as Record<string, any>))
      .filter((f) => f.relation?.targetType === 'book');
    expect(relationsToBook).toEqual([]);
  });

  it('answers 404 with a message for an unknown type', async () => {
    const { status, body } = await app.data('magazine');
    expect(status).toBe(404);
    expect(body.message).toMatch(/magazine/);
  });
});

describe('bookshelf: datalists', () => {
  it('lists every genre', async () => {
    const { status, body } = await app.datalist('genre');
    expect(status).toBe(200);
    expect(body.items).toHaveLength(GENRES.length);
    expect(body.items).toContainEqual({ title: 'Science fiction', value: 'science-fiction' });
  });

  it('lists every author without a genre, sorted by name', async () => {
    const { body } = await app.datalist('author');
    expect(body.items).toHaveLength(300);
    const titles = body.items.map((i: { title: string }) => i.title);
    expect(titles).toEqual([...titles].sort((a, b) => a.localeCompare(b)));
  });

  it('narrows authors to those with books in the genre it depends on', async () => {
    const { books } = dataset();
    const expected = new Set(books.filter((b) => b.genreId === 'poetry').map((b) => b.authorId));
    const { status, body } = await app.datalist('author', { dependsOn: { genre: 'poetry' } });
    expect(status).toBe(200);
    const values = new Set(body.items.map((i: { value: string }) => i.value));
    expect(values).toEqual(expected);
    expect(values.size).toBeLessThan(300);
    expect(values.size).toBeGreaterThan(0);
  });

  it('answers 404 for a field that is not a datalist', async () => {
    const { status, body } = await app.datalist('published');
    expect(status).toBe(404);
    expect(typeof body.message).toBe('string');
  });
});

describe('bookshelf: filter validation', () => {
  const validate = (filter: Record<string, unknown>) =>
    app.post('/api/v1/synchronizer/filter/validate', { types: ['book'], account: {}, filter });

  it('accepts an empty filter and a sensible one', async () => {
    expect([200, 204]).toContain((await validate({})).status);
    const ok = await validate({
      genre: 'fantasy',
      author: ['a-001', 'a-002'],
      published: { _min: '1990-01-01T00:00:00.000', _max: '1999-12-31T23:59:59.999' },
    });
    expect([200, 204]).toContain(ok.status);
  });

  it.each([
    [
      { published: { _min: '2020-01-01T00:00:00.000', _max: '2019-12-31T23:59:59.999' } },
      /start .* is after the end/,
    ],
    [{ published: { _min: 'soon' } }, /"soon" is not a date/],
    [{ genre: 'cookbooks' }, /"cookbooks" is not a genre/],
    [{ author: ['a-001', 'a-999'] }, /unknown author id\(s\) a-999/],
  ])('rejects %j with 400 {message}', async (filter, message) => {
    const { status, body } = await validate(filter);
    expect(status).toBe(400);
    expect(body).toEqual({ message: expect.stringMatching(message) });
  });

  it('rejects the same filter on a data request', async () => {
    const { status, body } = await app.data('book', {
      filter: { published: { _min: '2020-01-01T00:00:00.000', _max: '2019-01-01T00:00:00.000' } },
    });
    expect(status).toBe(400);
    expect(body.message).toMatch(/published/);
  });
});
