import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '../src/host/secret-box.js';
import { type HostedWorkspace, startHostedWorkspace } from '../src/host/start-hosted-workspace.js';
import { CHROMIUM, launchChromium } from './support/chromium.js';
import { describeEachDatabase } from './support/databases.js';
import { listenReplyApp, type ReplyAppControl } from './support/reply-app.js';

// Attacks on the page from a page of another origin, in a real headless Chromium. The other
// origin is another port of 127.0.0.1: the same *site* as the workspace, so the browser sends the
// SameSite=Strict session cookie along with its form posts; only the workspace's own checks stop
// them. The admin is logged in in the browser each time.
//  - the event URL: a page posts a form to /hooks/sources/:id, whose app answers HTML with a
//    script that reads /ui with the admin's session;
//  - forged forms: a page posts the form of an automation button, and a login form.

/** A server on another port that serves the attacking page a test sets, at any path. */
async function listenAttacker(): Promise<{ url: string; set(html: string): void; close(): Promise<void> }> {
  let page = '';
  const server: Server = await new Promise((resolve) => {
    const s = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(page);
    }).listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    set: (html) => {
      page = html;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** A form that the attacking page submits as soon as it loads. */
const autoPost = (action: string, fields: Record<string, string>) =>
  `<!doctype html><form method="post" action="${action}">${Object.entries(fields)
    .map(([k, v]) => `<input type="hidden" name="${k}" value="${v}">`)
    .join('')}</form><script>document.forms[0].submit()</script>`;

async function logInThroughThePage(page: Page, url: string, token: string): Promise<void> {
  await page.goto(`${url}/ui/login`);
  await page.fill('input[name=token]', token);
  await page.click('button');
  await page.waitForURL(`${url}/ui`);
}

describe.runIf(CHROMIUM)('page attacks in Chromium', () => {
  let browser: Browser;
  let attacker: Awaited<ReturnType<typeof listenAttacker>>;

  beforeAll(async () => {
    browser = await launchChromium();
    attacker = await listenAttacker();
  });
  afterAll(async () => {
    await browser?.close();
    await attacker?.close();
  });

  describeEachDatabase('attacks', (target) => {
    const TOKEN = `admin-${randomBytes(8).toString('hex')}`;
    const control: ReplyAppControl = { reply: undefined };
    let app: Awaited<ReturnType<typeof listenReplyApp>>;
    let ws: HostedWorkspace;
    let drop: () => Promise<void> = async () => {};
    let sourceId = '';

    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${ws.url}${path}`, {
        method,
        headers: { authorization: `Token ${TOKEN}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      expect(res.status, `${method} ${path}`).toBeLessThan(300);
      return res.json() as Promise<any>;
    };

    beforeAll(async () => {
      const created = await target.create();
      drop = created.drop;
      app = await listenReplyApp(control);
      ws = await startHostedWorkspace({
        database: created.database,
        adminToken: TOKEN,
        rateLimit: 0,
        webhooks: false,
        box: new SecretBox('page-attacks-key'),
        hostOptions: { scheduleEveryMs: 0 },
        log: () => {},
      });
      sourceId = (await ws.apps.addSource({ url: app.url, fields: { token: 't' } })).id;
      expect((await ws.apps.sync(sourceId, { wait: true })).status).toBe('succeeded');
    });
    afterAll(async () => {
      await ws?.close();
      await app?.close();
      await drop();
    });

    it("does not run an app's HTML answer on the workspace's origin (the event URL)", async () => {
      // What the app answers, were it served as HTML: a script that reads the page with the
      // admin's session (a synchronous request, so the verdict is in the title once it loads).
      control.reply = `<!doctype html><title>not run</title><script>
const x = new XMLHttpRequest(); x.open('GET', '/ui', false); x.send();
document.title = x.responseText.includes('Log out') ? 'read the session page' : 'ran';
</script>`;
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        page.setDefaultTimeout(20_000);
        await logInThroughThePage(page, ws.url, TOKEN);
        const [session] = (await context.cookies()).filter((c) => c.name === 'weft_page');

        const eventUrl = ws.apps.webhookUrl(sourceId);
        attacker.set(autoPost(eventUrl, { event: 'x' }));
        const answered = page.waitForResponse(eventUrl);
        await page.goto(`${attacker.url}/event`);
        const response = await answered;
        await page.waitForURL(eventUrl);
        await page.waitForLoadState('load');
        expect(response.status()).toBe(200);
        expect(response.headers()['content-type']).toBe('text/plain; charset=utf-8');
        expect(response.headers()['set-cookie']).toBeUndefined();
        // Shown as text, not run: the script's source is the page's text, and the title it would set
        // is not there.
        expect(await page.locator('body').textContent()).toContain("x.open('GET', '/ui', false)");
        expect(await page.title()).toBe('');
        expect((await context.cookies()).filter((c) => c.name === 'weft_page')).toEqual([session]);
      } finally {
        await context.close();
      }
    }, 120_000);

    it('refuses a button pressed by a page on another port, and takes the same button from the page', async () => {
      const automation = await api('POST', '/api/automations', {
        name: 'Stamp',
        trigger: 'button',
        type: 'replying/note',
        action: { kind: 'script', code: 'return 1;' },
      });
      const [found] = (await api('POST', '/api/commands', [
        {
          command: 'svc.entity/query',
          args: { query: { 'q/from': 'replying/note', 'q/select': ['svc/id'], 'q/limit': 1 } },
        },
      ])) as Array<{ result: Array<{ 'svc/id': string }> }>;
      const entity = found!.result[0]!['svc/id'];
      const runs = async () =>
        (await api('GET', `/api/automations/runs?automation=${automation.id}`)) as unknown[];

      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        page.setDefaultTimeout(20_000);
        await logInThroughThePage(page, ws.url, TOKEN);

        attacker.set(autoPost(`${ws.url}/ui/automations/run`, { automation: automation.id, entity }));
        const answered = page.waitForResponse(`${ws.url}/ui/automations/run`);
        await page.goto(`${attacker.url}/button`);
        const refused = await answered;
        expect(refused.status()).toBe(403);
        expect(await runs()).toEqual([]);

        // The same button from the entity's own page, which its Content-Security-Policy lets work:
        // its stylesheet applies and nothing is refused.
        const refusals: string[] = [];
        page.on('console', (m) => {
          if (m.type() === 'error') refusals.push(m.text());
        });
        await page.goto(`${ws.url}/ui/entity?type=replying%2Fnote&id=${entity}`);
        const header = page.locator('header');
        const background = await header.evaluate(
          (el) => el.ownerDocument.defaultView?.getComputedStyle(el).backgroundColor,
        );
        expect(background).toBe('rgb(36, 50, 74)');
        await page.click('button:has-text("Stamp")');
        await page.waitForURL(`${ws.url}/ui/automations`);
        expect(await runs()).toHaveLength(1);
        expect(refusals).toEqual([]);
      } finally {
        await context.close();
      }
    }, 120_000);

    it('refuses a login form posted by a page on another port', async () => {
      // The attacker's own valid token: a forged login would put the victim in the attacker's session.
      const theirs = await api('POST', '/api/tokens', { name: 'attacker' });
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        page.setDefaultTimeout(20_000);
        attacker.set(autoPost(`${ws.url}/ui/login`, { token: theirs.token }));
        const answered = page.waitForResponse(`${ws.url}/ui/login`);
        await page.goto(`${attacker.url}/login`);
        expect((await answered).status()).toBe(403);
        expect((await context.cookies()).filter((c) => c.name === 'weft_page')).toEqual([]);
        // The page's own login form still works.
        await logInThroughThePage(page, ws.url, TOKEN);
      } finally {
        await context.close();
        await api('DELETE', `/api/tokens/${theirs.id}`);
      }
    }, 120_000);
  });
});
