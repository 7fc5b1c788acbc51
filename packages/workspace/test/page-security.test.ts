import { beforeAll, expect, it } from 'vitest';
import { BOOK, type Seeded, seedBookshelf } from './support/bookshelf-seed.js';
import { describeEachDatabase, useWorkspace } from './support/databases.js';
import { cookieFrom, formTokenIn, logIn, loginForm, postLogin } from './support/page-session.js';

// The page's defences over real HTTP: its security headers, a session that lasts only as long as
// its token, and the checks on every state-changing request (where it comes from, and the form
// token). page-attacks-chromium.test.ts replays the attacks in a browser.

describeEachDatabase('page security', (target) => {
  const h = useWorkspace(target);
  let seeded: Seeded;
  let automation = '';

  beforeAll(async () => {
    seeded = await seedBookshelf(h, 2);
    const created = await h.request('POST', '/api/automations', {
      name: 'Stamp',
      trigger: 'button',
      type: BOOK,
      action: { kind: 'script', code: 'return 1;' },
    });
    expect(created.status).toBe(201);
    automation = created.body.id;
  });

  const runCount = async () =>
    ((await h.request('GET', `/api/automations/runs?automation=${automation}`)).body as unknown[]).length;

  /** Presses the Stamp button on the first book, with the given session and request headers. */
  const press = (cookie: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(`${h.url}/ui/automations/run`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams({ automation, entity: seeded.books[0]!, ...fields }).toString(),
      redirect: 'manual',
    });

  it('sends every page with a CSP without inline code, no framing and a same-origin Referer', async () => {
    const { cookie } = await logIn(h.url, h.token);
    const paths = [
      '/ui/login',
      '/ui',
      '/ui/automations',
      `/ui/entity?type=${encodeURIComponent(BOOK)}&id=${seeded.books[0]}`,
    ];
    for (const path of paths) {
      const res = await fetch(`${h.url}${path}`, { headers: { cookie } });
      expect(res.status, path).toBe(200);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp, path).toContain("default-src 'none'");
      expect(csp, path).toContain("script-src 'self'");
      expect(csp, path).toContain("style-src 'self'");
      expect(csp, path).toContain("frame-ancestors 'none'");
      expect(csp, path).not.toContain('unsafe-inline');
      expect(res.headers.get('x-frame-options'), path).toBe('DENY');
      expect(res.headers.get('referrer-policy'), path).toBe('same-origin');
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
      // What the policy allows is all the page uses: no inline style or script.
      const text = await res.text();
      expect(text, path).not.toMatch(/<style|style="|<script>|<script(?![^>]*\ssrc=)/);
      expect(text, path).toContain('<link rel="stylesheet" href="/ui/style.css">');
    }
    const css = await fetch(`${h.url}/ui/style.css`);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(await css.text()).toContain('body{');
  });

  it('sets its cookies HttpOnly and SameSite=Strict', async () => {
    const form = await fetch(`${h.url}/ui/login`);
    const login = form.headers.getSetCookie().find((c) => c.startsWith('weft_login='))!;
    expect(login).toMatch(/; Path=\/ui\/login/);
    expect(login).toMatch(/; HttpOnly/);
    expect(login).toMatch(/; SameSite=Strict/);
    const res = await postLogin(h.url, h.token);
    const session = res.headers.getSetCookie().find((c) => c.startsWith('weft_page='))!;
    expect(session).toMatch(/; Path=\/ui/);
    expect(session).toMatch(/; HttpOnly/);
    expect(session).toMatch(/; SameSite=Strict/);
  });

  it('ends a session as soon as its token is deleted', async () => {
    const made = await h.request('POST', '/api/tokens', { name: 'for the page' });
    expect(made.status).toBe(201);
    const mine = await logIn(h.url, made.body.token);
    const other = await logIn(h.url, h.token);
    expect(
      (await fetch(`${h.url}/ui`, { headers: { cookie: mine.cookie }, redirect: 'manual' })).status,
    ).toBe(200);

    // The page's live stream, open while the token is deleted.
    const stream = await fetch(`${h.url}/ui/events`, { headers: { cookie: mine.cookie } });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    expect((await reader.read()).done).toBe(false);

    expect((await h.request('DELETE', `/api/tokens/${made.body.id}`)).status).toBe(200);
    // The stream ends (at its next tick) instead of going on with the deleted token.
    while (!(await reader.read()).done) {}
    const after = await fetch(`${h.url}/ui`, { headers: { cookie: mine.cookie }, redirect: 'manual' });
    expect(after.status).toBe(303);
    expect(after.headers.get('location')).toBe('/ui/login');
    const before = await runCount();
    const pressed = await press(mine.cookie, { csrf: mine.formToken });
    expect(pressed.status).toBe(401);
    expect(await runCount()).toBe(before);
    // The session of another token goes on.
    expect(
      (await fetch(`${h.url}/ui`, { headers: { cookie: other.cookie }, redirect: 'manual' })).status,
    ).toBe(200);
  });

  it('refuses a state-changing request from another origin, whatever the browser says it with', async () => {
    const { cookie, formToken } = await logIn(h.url, h.token);
    const before = await runCount();
    const other = 'http://127.0.0.1:1';
    const refusals: Record<string, string>[] = [
      { 'sec-fetch-site': 'same-site', origin: h.url },
      { 'sec-fetch-site': 'cross-site' },
      { origin: other },
      { origin: 'null' },
      { referer: `${other}/page` },
    ];
    for (const headers of refusals) {
      const res = await press(cookie, { csrf: formToken }, headers);
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(await res.json()).toMatchObject({ code: 'forbidden' });
    }
    // A browser asking for a page gets a small page instead.
    const page = await press(cookie, { csrf: formToken }, { origin: other, accept: 'text/html' });
    expect(page.status).toBe(403);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toContain('came from another site or page');
    expect(await runCount()).toBe(before);

    const allowed: Record<string, string>[] = [
      { 'sec-fetch-site': 'same-origin' },
      { origin: h.url },
      { referer: `${h.url}/ui` },
      {},
    ];
    for (const headers of allowed)
      expect((await press(cookie, { csrf: formToken }, headers)).status, JSON.stringify(headers)).toBe(303);
    expect(await runCount()).toBe(before + 4);
  });

  it("refuses a POST without the session's form token", async () => {
    const { cookie, formToken } = await logIn(h.url, h.token);
    const another = await logIn(h.url, h.token);
    const before = await runCount();
    const wrong: Record<string, string>[] = [
      {},
      { csrf: '' },
      { csrf: `${formToken}x` },
      { csrf: another.formToken },
    ];
    for (const fields of wrong) {
      const res = await press(cookie, fields, { origin: h.url });
      expect(res.status, JSON.stringify(fields)).toBe(403);
    }
    // Logging out is a POST too.
    const logout = await fetch(`${h.url}/ui/logout`, {
      method: 'POST',
      headers: { cookie, origin: h.url },
      redirect: 'manual',
    });
    expect(logout.status).toBe(403);
    expect(await runCount()).toBe(before);
    // Each of the page's POST forms carries the token.
    const entity = await (
      await fetch(`${h.url}/ui/entity?type=${encodeURIComponent(BOOK)}&id=${seeded.books[0]}`, {
        headers: { cookie },
      })
    ).text();
    const forms = entity.match(/<form\b[^>]*method="post"[^>]*>/g) ?? [];
    expect(forms.length).toBeGreaterThanOrEqual(2); // the button, and logging out
    expect(entity.split(`<input type="hidden" name="csrf" value="${formToken}">`).length - 1).toBe(
      forms.length,
    );
    expect(formTokenIn(entity)).toBe(formToken);
  });

  it('takes a login only with the token of the login form it was given', async () => {
    const post = (
      cookie: string | undefined,
      csrf: string | undefined,
      headers: Record<string, string> = {},
    ) =>
      fetch(`${h.url}/ui/login`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          ...(cookie ? { cookie } : {}),
          ...headers,
        },
        body: new URLSearchParams({ token: h.token, ...(csrf === undefined ? {} : { csrf }) }).toString(),
        redirect: 'manual',
      });
    const one = await loginForm(h.url);
    const two = await loginForm(h.url);
    for (const [cookie, csrf] of [
      [undefined, one.formToken],
      [one.cookie, undefined],
      [one.cookie, two.formToken],
      [two.cookie, one.formToken],
    ] as const) {
      const res = await post(cookie, csrf);
      expect(res.status).toBe(403);
      expect(cookieFrom(res, 'weft_page')).toBeUndefined();
    }
    const forged = await post(one.cookie, one.formToken, { origin: 'http://127.0.0.1:1' });
    expect(forged.status).toBe(403);
    expect(cookieFrom(forged, 'weft_page')).toBeUndefined();

    const res = await post(one.cookie, one.formToken, { origin: h.url });
    expect(res.status).toBe(303);
    expect(cookieFrom(res, 'weft_page')).toBeDefined();
    // The login cookie is spent.
    expect(res.headers.getSetCookie().find((c) => c.startsWith('weft_login='))).toMatch(
      /Expires=Thu, 01 Jan 1970/,
    );
  });
});
