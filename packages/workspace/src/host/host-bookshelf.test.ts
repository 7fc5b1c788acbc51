// End to end over real HTTP: the bookshelf app synced into the workspace through the host's JSON
// API, then read back through the data API.
import { type TestApp, testApp } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bookshelfApp } from '../../../../apps/bookshelf/src/app.js';
import { AUTHOR_COUNT, BOOK_COUNT, dataset, GENRES } from '../../../../apps/bookshelf/src/dataset.js';
import { type HostedWorkspace, startHostedWorkspace } from './start-hosted-workspace.js';
import { SecretBox } from './secret-box.js';

let app: TestApp;
let ws: HostedWorkspace;
const TOKEN = 'host-test-admin-token';

async function api(method: string, path: string, body?: unknown) {
  const response = await fetch(ws.url + path, {
    method,
    headers: { authorization: `Token ${TOKEN}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

async function query(q: Record<string, unknown>, params?: Record<string, unknown>) {
  const { body } = await api('POST', '/api/commands', [
    { command: 'svc.entity/query', args: { query: q, ...(params ? { params } : {}) } },
  ]);
  expect(body[0].success).toBe(true);
  return body[0].result as Record<string, any>[];
}

beforeAll(async () => {
  app = await testApp(bookshelfApp);
  ws = await startHostedWorkspace({
    adminToken: TOKEN,
    rateLimit: 0,
    webhooks: false,
    box: new SecretBox('test-key'),
    hostOptions: { scheduleEveryMs: 0 },
    log: () => {},
  });
});
afterAll(async () => {
  await ws?.close();
  await app?.close();
});

describe('bookshelf synced into the workspace', () => {
  let sourceId: string;

  it('adds the app by URL with its logo, types and a date filter typed as a phrase', async () => {
    const bad = await api('POST', '/api/host/sources', {
      url: app.url,
      filter: { published: 'between 32 and 33 of nothing' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/published/);
    const unknownGenre = await api('POST', '/api/host/sources', {
      url: app.url,
      filter: { genre: 'no-such-genre' },
    });
    expect(unknownGenre.status).toBe(400);
    expect(unknownGenre.body.message).toMatch(/genre/);

    const { status, body } = await api('POST', '/api/host/sources', { url: app.url });
    expect(status).toBe(201);
    expect(body).toMatchObject({ name: 'Bookshelf', namespace: 'bookshelf', authId: 'none', hasLogo: true });
    expect(body.types.sort()).toEqual(['author', 'book', 'genre']);
    sourceId = body.id;
    const logo = await fetch(`${ws.url}/api/host/sources/${sourceId}/logo`, {
      headers: { authorization: `Token ${TOKEN}` },
    });
    expect(logo.headers.get('content-type')).toMatch(/svg/);
    const list = await api('GET', '/api/host/sources');
    expect(list.body.map((s: { id: string }) => s.id)).toEqual([sourceId]);
  });

  it('answers datalists, passing dependsOn', async () => {
    const genres = await api('POST', `/api/host/sources/${sourceId}/datalist`, { field: 'genre' });
    expect(genres.body.items).toHaveLength(GENRES.length);
    const genre = genres.body.items[0].value;
    const authors = await api('POST', `/api/host/sources/${sourceId}/datalist`, {
      field: 'author',
      dependsOn: { genre },
    });
    const direct = await app.request('POST', '/api/v1/synchronizer/datalist', {
      types: ['author', 'book', 'genre'],
      account: {},
      field: 'author',
      dependsOn: { genre },
    });
    expect(authors.body.items).toEqual(direct.body.items);
    expect(authors.body.items.length).toBeLessThan(AUTHOR_COUNT);
  });

  it('runs a full sync and records it', async () => {
    const { status, body: run } = await api('POST', `/api/host/sources/${sourceId}/syncs?wait=true`);
    expect(status).toBe(200);
    expect(run).toMatchObject({ status: 'succeeded', mode: 'full', error: null, rowsRemoved: 0 });
    expect(run.rowsSet).toBe(BOOK_COUNT + AUTHOR_COUNT + GENRES.length);
    expect(run.pages).toBeGreaterThanOrEqual(BOOK_COUNT / 500);
    const runs = await api('GET', `/api/host/sources/${sourceId}/runs`);
    expect(runs.body[0].id).toBe(run.id);
  });

  it('holds every row, with relations equal to the source', async () => {
    const [count] = await query(
      {
        'q/from': 'bookshelf/author',
        'q/select': [{ n: ['q/count', ['bookshelf/books', 'svc/id']] }, 'bookshelf/id'],
        'q/where': ['=', ['bookshelf/id'], '$id'],
      },
      { $id: dataset().authors[0]?.id },
    );
    const firstAuthor = dataset().authors[0]?.id;
    expect(count?.n).toBe(dataset().books.filter((b) => b.authorId === firstAuthor).length);

    const books = await query({
      'q/from': 'bookshelf/book',
      'q/select': [
        'bookshelf/id',
        'bookshelf/name',
        'bookshelf/pages',
        'bookshelf/rating',
        'bookshelf/published',
        { 'bookshelf/author': ['bookshelf/id'] },
        { 'bookshelf/genre': ['bookshelf/id'] },
      ],
      'q/limit': 'q/no-limit',
    });
    expect(books).toHaveLength(BOOK_COUNT);
    const source = new Map(dataset().books.map((b) => [b.id, b]));
    for (const row of books) {
      const b = source.get(row['bookshelf/id']);
      expect(b).toBeDefined();
      expect(row['bookshelf/name']).toBe(b?.title);
      expect(row['bookshelf/author']?.['bookshelf/id']).toBe(b?.authorId);
      expect(row['bookshelf/genre']?.['bookshelf/id']).toBe(b?.genreId);
      expect(row['bookshelf/published']).toBe(b?.published);
      expect(row['bookshelf/pages']).toBe(b?.pages);
    }
    expect(
      await query({ 'q/from': 'bookshelf/author', 'q/select': ['svc/id'], 'q/limit': 'q/no-limit' }),
    ).toHaveLength(AUTHOR_COUNT);
    expect(
      await query({ 'q/from': 'bookshelf/genre', 'q/select': ['svc/id'], 'q/limit': 'q/no-limit' }),
    ).toHaveLength(GENRES.length);
  });

  it('stores markdown as rich-text documents', async () => {
    const book = dataset().books[0];
    const [row] = await query(
      {
        'q/from': 'bookshelf/book',
        'q/select': [{ 'bookshelf/description': ['Collaboration~Documents/secret'] }],
        'q/where': ['=', ['bookshelf/id'], '$id'],
      },
      { $id: book?.id },
    );
    const secret = row?.['bookshelf/description']?.['Collaboration~Documents/secret'];
    const doc = await api('GET', `/api/documents/${secret}?format=md`);
    expect(doc.body.content.trim()).toBe(book?.description.trim());
  });

  it('syncs again without duplicating a row', async () => {
    const { body: run } = await api('POST', `/api/host/sources/${sourceId}/syncs?wait=true`);
    expect(run.status).toBe('succeeded');
    expect(
      await query({ 'q/from': 'bookshelf/book', 'q/select': ['svc/id'], 'q/limit': 'q/no-limit' }),
    ).toHaveLength(BOOK_COUNT);
  });

  it('refuses the host API without an admin token', async () => {
    const response = await fetch(`${ws.url}/api/host/sources`);
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ message: expect.any(String) });
  });
});
