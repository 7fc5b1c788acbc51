// Record/replay against a real local upstream that pages, rate-limits and changes its data.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defineApp } from '../define/app.js';
import { auth } from '../index.js';
import { field } from '../define/index.js';
import { testApp } from '../testing/test-app.js';
import { InvalidAccountError } from '../errors/errors.js';
import { bearer } from './auth.js';
import { CassetteError, upstreamMode, useCassette } from './cassette.js';
import { createUpstream } from './client.js';

const TOKEN = 'tok_cassette_secret_42';
const QUERY_KEY = 'qk_cassette_secret_77';

/** The upstream: /items?page=N, 3 per page over `items`; the first request for page 2 is rate-limited. */
interface Upstream {
  url: string;
  items: string[];
  hits: string[];
  close(): Promise<void>;
}

async function startUpstream(): Promise<Upstream> {
  const state: Upstream = {
    url: '',
    items: ['a', 'b', 'c', 'd', 'e', 'f', 'g'],
    hits: [],
    close: async () => {},
  };
  let limited = false;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    state.hits.push(`${req.method} ${url.pathname}${url.search}`);
    if (req.headers.authorization !== `Bearer ${TOKEN}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"message":"who are you"}');
      return;
    }
    const page = Number(url.searchParams.get('page') ?? '1');
    if (page === 2 && !limited) {
      limited = true;
      res
        .writeHead(429, { 'retry-after': '0', 'content-type': 'application/json' })
        .end('{"message":"slow"}');
      return;
    }
    const slice = state.items.slice((page - 1) * 3, page * 3);
    const next = page * 3 < state.items.length ? page + 1 : null;
    res
      .writeHead(200, { 'content-type': 'application/json', 'set-cookie': `session=${TOKEN}` })
      .end(JSON.stringify({ items: slice, next, echo: `token was ${TOKEN}` }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return state;
}

/** Every page, as an app's data handler walks them. */
async function allItems(baseUrl: string): Promise<string[]> {
  const api = createUpstream({ baseUrl, auth: bearer(TOKEN), backoff: 1 });
  const out: string[] = [];
  for (let page: number | null = 1; page !== null; ) {
    const body: { items: string[]; next: number | null } = await api.json('GET', '/items', {
      query: { page, api_key: QUERY_KEY },
    });
    out.push(...body.items);
    page = body.next;
  }
  return out;
}

let dir: string;
let restore: (() => void) | undefined;
const savedMode = process.env.WEFT_UPSTREAM;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'weft-cassette-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  restore?.();
  restore = undefined;
  if (savedMode === undefined) delete process.env.WEFT_UPSTREAM;
  else process.env.WEFT_UPSTREAM = savedMode;
});

function mode(value: 'record' | 'replay' | 'off', cassette: string): void {
  restore?.();
  process.env.WEFT_UPSTREAM = value;
  restore = useCassette(cassette);
}

describe('cassettes: record and replay', () => {
  it('records every page (and the 429) without secrets, then replays them offline', async () => {
    const upstream = await startUpstream();
    const file = join(dir, 'pages.json');
    mode('record', file);
    expect(await allItems(upstream.url)).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
    expect(upstream.hits).toHaveLength(4); // page 1, page 2 (429), page 2, page 3
    await upstream.close();

    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(QUERY_KEY);
    expect(text.toLowerCase()).not.toContain('authorization');
    expect(text).not.toContain('set-cookie');
    const cassette = JSON.parse(text);
    expect(cassette.interactions.map((i: any) => i.response.status)).toEqual([200, 429, 200, 200]);
    expect(cassette.interactions[0].request.url).toMatch(/\/items\?page=1&api_key=%5Bredacted%5D$/);
    expect(cassette.interactions[0].response.json.items).toEqual(['a', 'b', 'c']);

    // The upstream is gone: replay answers from the file, the 429 included.
    mode('replay', file);
    expect(await allItems(upstream.url)).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
  });

  it('fails loudly on a request that was not recorded, and on a missing cassette', async () => {
    const upstream = await startUpstream();
    const file = join(dir, 'one-page.json');
    mode('record', file);
    const api = createUpstream({ baseUrl: upstream.url, auth: bearer(TOKEN) });
    await api.json('GET', '/items', { query: { page: 1 } });
    await upstream.close();

    mode('replay', file);
    const replayed = createUpstream({ baseUrl: upstream.url, auth: bearer(TOKEN) });
    await expect(replayed.json('GET', '/items', { query: { page: 1 } })).resolves.toMatchObject({
      items: ['a', 'b', 'c'],
    });
    const miss = replayed.json('GET', '/items', { query: { page: 9 } });
    await expect(miss).rejects.toBeInstanceOf(CassetteError);
    await expect(miss).rejects.toThrow(
      /GET http:\/\/127\.0\.0\.1:\d+\/items\?page=9 \(credentials #1\) was not recorded in/,
    );
    // A different body is a different request.
    await expect(replayed.post('/items', { json: { name: 'x' } })).rejects.toThrow(/with this body/);

    mode('replay', join(dir, 'nothing-here.json'));
    expect(() => createUpstream({ baseUrl: upstream.url }).get('/')).toThrow(/no cassette at/);
  });

  it('tells apart requests sent with different credentials, without storing them', async () => {
    const upstream = await startUpstream();
    const file = join(dir, 'credentials.json');
    const items = (token: string) =>
      createUpstream({ baseUrl: upstream.url, auth: bearer(token) }).json('GET', '/items');
    mode('record', file);
    await items(TOKEN);
    await expect(items('wrong-token-1')).rejects.toBeInstanceOf(InvalidAccountError);
    await upstream.close();
    const recorded = JSON.parse(readFileSync(file, 'utf8')).interactions;
    expect(recorded.map((i: any) => i.request.credentials)).toEqual([1, 2]);
    expect(JSON.stringify(recorded)).not.toContain('wrong-token-1');

    // Replay numbers credentials by first appearance too; the same order of first use is enough.
    mode('replay', file);
    await expect(items('any-first-token')).resolves.toMatchObject({ items: ['a', 'b', 'c'] });
    await expect(items('another-token')).rejects.toBeInstanceOf(InvalidAccountError);
    await expect(items('any-first-token')).resolves.toMatchObject({ items: ['a', 'b', 'c'] });
    await expect(items('a-third-token')).rejects.toThrow(/\(credentials #3\) was not recorded/);
  });

  it('keeps replaying the old answers after the upstream changed, until recorded again', async () => {
    const upstream = await startUpstream();
    const file = join(dir, 'changes.json');
    mode('record', file);
    expect(await allItems(upstream.url)).toHaveLength(7);

    upstream.items = ['x', 'y'];
    mode('replay', file);
    expect(await allItems(upstream.url)).toHaveLength(7);

    mode('record', file);
    expect(await allItems(upstream.url)).toEqual(['x', 'y']);
    mode('replay', file);
    expect(await allItems(upstream.url)).toEqual(['x', 'y']);
    expect(JSON.parse(readFileSync(file, 'utf8')).interactions).toHaveLength(1);
    await upstream.close();
  });

  it('a replay miss inside a sync is an error answer, never an empty page', async () => {
    const upstream = await startUpstream();
    const app = defineApp({
      id: 'cassette-app',
      name: 'Cassette app',
      version: '1.0.0',
      description: 'Items from the local upstream',
      website: 'https://example.com',
      authentication: [auth.none()],
      sync: {
        types: {
          item: {
            name: 'Items',
            fields: { id: field.id(), name: field.title() },
            async *data({ signal }) {
              const api = createUpstream({ baseUrl: upstream.url, auth: bearer(TOKEN), signal });
              const body: { items: string[] } = await api.json('GET', '/items', { query: { page: 3 } });
              yield body.items.map((id) => ({ id, name: id.toUpperCase() }));
            },
          },
        },
      },
    });
    const running = await testApp(app);
    try {
      mode('record', join(dir, 'app.json'));
      expect((await running.sync('item')).items).toEqual([{ id: 'g', name: 'G' }]);
      await upstream.close();
      mode('replay', join(dir, 'app.json'));
      expect((await running.sync('item')).items).toEqual([{ id: 'g', name: 'G' }]);
      upstream.url = upstream.url.replace('127.0.0.1', 'localhost');
      const answer = await running.data('item');
      expect(answer.status).toBe(500);
      expect(answer.body.message).toMatch(/was not recorded/);
    } finally {
      await running.close();
    }
  });
});

describe('cassettes: mode', () => {
  it('reads WEFT_UPSTREAM, defaulting to off, or replay once a test chose a cassette', () => {
    expect(upstreamMode({})).toBe('off');
    expect(upstreamMode({ WEFT_UPSTREAM: 'Record' })).toBe('record');
    expect(upstreamMode({ WEFT_CASSETTE_FROM_TEST: '1' })).toBe('replay');
    expect(() => upstreamMode({ WEFT_UPSTREAM: 'live' })).toThrow(/off, record or replay/);
  });

  it('record without a cassette says how to name one', () => {
    process.env.WEFT_UPSTREAM = 'record';
    const before = process.env.WEFT_CASSETTE;
    delete process.env.WEFT_CASSETTE;
    try {
      expect(() => createUpstream({ baseUrl: 'http://127.0.0.1:9' })).toThrow(/needs a cassette file/);
    } finally {
      if (before !== undefined) process.env.WEFT_CASSETTE = before;
    }
  });
});
