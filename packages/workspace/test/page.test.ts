import { beforeAll, expect, it } from 'vitest';
import { BOOK, type Seeded, seedBookshelf } from './support/bookshelf-seed.js';
import { describeEachDatabase, useWorkspace } from './support/databases.js';
import { cookieFrom, formTokenIn, postLogin } from './support/page-session.js';

// The page over real HTTP: login and session cookie, the type table (paging, sorting, filtering
// through the data API's query), the entity detail (relation links, sanitised rich text).

describeEachDatabase('page', (target) => {
  const h = useWorkspace(target);
  let seeded: Seeded;
  let cookie = '';

  beforeAll(async () => {
    seeded = await seedBookshelf(h, 30);
  });

  const get = async (path: string, withCookie = true) => {
    const res = await fetch(`${h.url}${path}`, {
      headers: withCookie ? { cookie } : {},
      redirect: 'manual',
    });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };

  it('sends visitors to the login form and refuses a wrong token', async () => {
    const res = await get('/ui', false);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/ui/login');
    const wrong = await postLogin(h.url, 'nope');
    expect(wrong.status).toBe(401);
    expect(cookieFrom(wrong, 'weft_page')).toBeUndefined();
  });

  it('logs in with the workspace token into an HttpOnly, SameSite=Strict session', async () => {
    const res = await postLogin(h.url, h.token);
    expect(res.status).toBe(303);
    const setCookie = res.headers.getSetCookie().find((c) => c.startsWith('weft_page='))!;
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    expect(setCookie).not.toContain(h.token);
    cookie = setCookie.split(';')[0]!;
    const overview = await get('/ui');
    expect(overview.status).toBe(200);
    expect(overview.text).toContain(`href="/ui/type?name=bookshelf%2Fbook"`);
    expect(overview.text).not.toContain(h.token);
  });

  it('shows a type a page at a time, sorted and filtered by the query', async () => {
    const first = await get(`/ui/type?name=${encodeURIComponent(BOOK)}`);
    expect(first.status).toBe(200);
    expect((first.text.match(/<tr>/g) ?? []).length).toBe(1 + 25);
    expect(first.text).toContain('rel="next"');
    // Values are escaped: the book named "Book <1>" appears as text.
    expect(first.text).toContain('Book &lt;1&gt;');
    expect(first.text).not.toContain('Book <1>');
    const second = await get(`/ui/type?name=${encodeURIComponent(BOOK)}&page=1`);
    expect((second.text.match(/<tr>/g) ?? []).length).toBe(1 + 5);
    const sorted = await get(`/ui/type?name=${encodeURIComponent(BOOK)}&sort=bookshelf%2Fpages&desc=1`);
    const pages = [...sorted.text.matchAll(/<td>(1\d\d)<\/td>/g)].map((m) => Number(m[1]));
    expect(pages.slice(0, 3)).toEqual([129, 128, 127]);
    const filtered = await get(`/ui/type?name=${encodeURIComponent(BOOK)}&f=bookshelf%2Fauthor&v=Lem`);
    expect((filtered.text.match(/<tr>/g) ?? []).length).toBe(1 + 15);
    const bad = await get(`/ui/type?name=${encodeURIComponent(BOOK)}&f=bookshelf%2Fpages&v=many`);
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('is not a whole number');
  });

  it('shows an entity with its relations as links and its rich text sanitised', async () => {
    const res = await get(`/ui/entity?type=${encodeURIComponent(BOOK)}&id=${seeded.books[0]}`);
    expect(res.status).toBe(200);
    expect(res.text).toContain(
      `href="/ui/entity?type=bookshelf%2Fauthor&amp;id=${seeded.authors[0]}">Ursula K. Le Guin</a>`,
    );
    expect(res.text).toContain('<h1>An ambiguous utopia</h1>');
    expect(res.text).toContain('<strong>physicist</strong>');
    expect(res.text).not.toContain('<script>alert');
    expect(res.text).toContain('&lt;script&gt;');
    expect(res.text).not.toContain('javascript:');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    const author = await get(`/ui/entity?type=bookshelf%2Fauthor&id=${seeded.authors[1]}`);
    expect(author.text).toContain('Book &lt;1&gt;</a>');
    expect((await get(`/ui/entity?type=${encodeURIComponent(BOOK)}&id=${seeded.authors[0]}`)).status).toBe(
      404,
    );
    // By public id, as scripts' utils.getEntityUrl links it: on to the entity's own page.
    const [book] = await h.run('svc.entity/query', {
      query: { 'q/from': BOOK, 'q/select': ['svc/public-id'], 'q/where': ['=', ['svc/id'], '$id'] },
      params: { $id: seeded.books[0] },
    });
    const byPublic = await get(
      `/ui/entity?type=${encodeURIComponent(BOOK)}&public-id=${book['svc/public-id']}`,
    );
    expect(byPublic.status).toBe(303);
    expect(byPublic.headers.get('location')).toBe(
      `/ui/entity?type=${encodeURIComponent(BOOK)}&id=${seeded.books[0]}`,
    );
    expect((await get(`/ui/entity?type=${encodeURIComponent(BOOK)}&public-id=99999`)).status).toBe(404);
  });

  it('shows automations and their buttons without their app accounts', async () => {
    const created = await h.request('POST', '/api/automations', {
      name: 'Tell the channel',
      trigger: 'button',
      type: BOOK,
      action: {
        kind: 'app',
        url: 'http://127.0.0.1:9/',
        action: 'send-message',
        args: { text: '{{Name}}' },
        account: { webhookUrl: 'http://127.0.0.1:9/very-secret-path', token: 'sekrit-token-value' },
      },
    });
    expect(created.status).toBe(201);
    const list = await get('/ui/automations');
    expect(list.text).toContain('Tell the channel');
    const entity = await get(`/ui/entity?type=${encodeURIComponent(BOOK)}&id=${seeded.books[1]}`);
    expect(entity.text).toContain('<button>Tell the channel</button>');
    for (const page of [list.text, entity.text, (await get('/ui')).text]) {
      expect(page).not.toContain('very-secret-path');
      expect(page).not.toContain('sekrit-token-value');
    }
  });

  it('shows automation runs and streams their states as server-sent events', async () => {
    const res = await get('/ui/automations');
    expect(res.status).toBe(200);
    expect(res.text).toContain('<script src="/ui/live.js"></script>');
    const controller = new AbortController();
    const events = await fetch(`${h.url}/ui/events`, { headers: { cookie }, signal: controller.signal });
    expect(events.headers.get('content-type')).toBe('text/event-stream');
    const reader = events.body!.getReader();
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value)).toMatch(/^event: runs\ndata: \[/);
    controller.abort();
    const logout = await fetch(`${h.url}/ui/logout`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf: formTokenIn(res.text) }).toString(),
      redirect: 'manual',
    });
    expect(logout.status).toBe(303);
    expect((await get('/ui')).status).toBe(303);
  });
});
