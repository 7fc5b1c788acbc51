import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostedWorkspace } from '../src/host/start-hosted-workspace.js';
import { type ChatInbox, INBOX_TYPE } from '../src/quickstart/chat-inbox.js';
import { startQuickStartWorkspace } from './support/quick-start-workspace.js';
import { waitFor } from './support/bookshelf-seed.js';
import { CHROMIUM, launchChromium } from './support/chromium.js';
import { describeEachDatabase } from './support/databases.js';

// The page reads like the service, and manages automations, in a real headless Chromium:
// apps/bookshelf synced through the app host, the real apps/chat-notify, and the quick start's
// local chat receiver (its messages become `inbox/message` entities the page shows).

const BOOK = 'bookshelf/book';

describe.runIf(CHROMIUM)('page in Chromium: reads like the service, automations', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  describeEachDatabase('page', (target) => {
    const TOKEN = `admin-${randomBytes(8).toString('hex')}`;
    let chatNotifyUrl = '';
    let inbox: ChatInbox;
    let ws: HostedWorkspace;
    let sourceId = '';
    let close: () => Promise<void> = async () => {};

    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${ws.url}${path}`, {
        method,
        headers: { authorization: `Token ${TOKEN}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      expect(res.status, `${method} ${path}`).toBeLessThan(300);
      return res.json() as Promise<any>;
    };
    const command = async (name: string, args: unknown) => {
      const [result] = await api('POST', '/api/commands', [{ command: name, args }]);
      expect(result.success, JSON.stringify(result)).toBe(true);
      return result.result;
    };
    const runsOf = async (name: string) =>
      (
        (await api('GET', '/api/automations/runs')) as Array<{
          automation: string;
          state: string;
          console: string;
        }>
      ).filter((r) => r.automation === name);

    beforeAll(async () => {
      ({ ws, sourceId, chatNotifyUrl, inbox, close } = await startQuickStartWorkspace(target, {
        adminToken: TOKEN,
        secretKey: 'page-automations-key',
      }));
    }, 180_000);
    afterAll(() => close());

    /** A logged-in page in a German locale on UTC, so dates have one known local form. */
    async function loggedIn(): Promise<Page> {
      const context = await browser.newContext({
        locale: 'de-DE',
        timezoneId: 'UTC',
        viewport: { width: 1000, height: 700 },
      });
      const page = await context.newPage();
      page.setDefaultTimeout(30_000);
      await page.goto(`${ws.url}/ui/login`);
      await page.fill('input[name=token]', TOKEN);
      await page.click('button');
      await page.waitForURL(`${ws.url}/ui`);
      return page;
    }
    const fitsTheWindow = (page: Page) =>
      page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth');

    it('shows labels as headers, dates in the viewer locale, titles, and tables that fit the window', async () => {
      const page = await loggedIn();
      try {
        // Sources are told apart by their id.
        expect(await page.locator(`table#sources tr[data-source="${sourceId}"] code`).textContent()).toBe(
          sourceId.slice(0, 8),
        );
        expect(await fitsTheWindow(page)).toBe(true);

        await page.goto(`${ws.url}/ui/type?name=${encodeURIComponent(BOOK)}`);
        const headers = (await page.locator('table#entities th').allTextContents()).map((h) => h.trim());
        expect(headers).toEqual(
          expect.arrayContaining(['Public Id', 'Title', 'ISBN', 'Author', 'Updated At']),
        );
        expect(headers.join(' ')).not.toContain('bookshelf/');
        // The book table is wider than the window: it scrolls inside its own box, the page does not.
        expect(await fitsTheWindow(page)).toBe(true);

        // "Updated At" in the viewer's locale (German: 01.03.2026, 00:00), the ISO value on hover;
        // a day ("Published") as that day.
        const two = (n: number) => String(n).padStart(2, '0');
        const german = (d: Date) =>
          `${two(d.getUTCDate())}.${two(d.getUTCMonth() + 1)}.${d.getUTCFullYear()}`;
        const instant = page.locator('table#entities time[datetime*="T"]').first();
        const iso = (await instant.getAttribute('datetime'))!;
        expect(await instant.getAttribute('title')).toBe(iso);
        const at = new Date(iso);
        expect(await instant.textContent()).toBe(
          `${german(at)}, ${two(at.getUTCHours())}:${two(at.getUTCMinutes())}`,
        );
        const day = page.locator('table#entities time:not([datetime*="T"])').first();
        const dayIso = (await day.getAttribute('datetime'))!;
        expect(dayIso).toMatch(/^\d{4}-\d{2}-\d{2}$/);
        expect(await day.getAttribute('title')).toBe(dayIso);
        expect(await day.textContent()).toBe(german(new Date(dayIso)));

        // An entity is titled by its title field, not by its type and public id.
        const first = page.locator('table#entities tbody tr:first-child td:nth-child(2) a');
        const title = (await first.textContent())!.trim();
        await first.click();
        await page.waitForSelector('table#entity');
        expect((await page.locator('main > h1').textContent())?.trim()).toBe(title);
        expect(await page.locator('table#entity th', { hasText: 'Updated At' }).count()).toBe(1);
      } finally {
        await page.context().close();
      }
    }, 120_000);

    it('creates, edits, turns off and on, and deletes a rule whose chat message shows on the page', async () => {
      const page = await loggedIn();
      const RULE = 'New book to chat';
      try {
        await page.goto(`${ws.url}/ui/automations`);
        await page.click('a[href="/ui/automations/new"]');
        await page.fill('input[name=name]', RULE);
        await page.selectOption('select[name=trigger]', 'created');
        await page.fill('input[name=type]', BOOK);
        await page.selectOption('select[name=kind]', 'app');
        await page.fill('input[name=url]', chatNotifyUrl);
        await page.fill('input[name=action]', 'send-message');
        await page.fill('textarea[name=args]', 'text: New book: {{Title}}');
        await page.fill('textarea[name=account]', `webhookUrl: ${inbox.url}`);
        await page.click('#automation-form button');
        await page.waitForURL(`${ws.url}/ui/automations`);
        const row = page.locator('table#automations tr', { hasText: RULE });
        expect(await row.locator('td.enabled').textContent()).toBe('yes');
        // The account is sealed: neither the list nor the edit form shows it.
        expect(await page.content()).not.toContain(inbox.url);

        // Edit the template; the empty account box keeps the stored account.
        await row.locator('a', { hasText: 'Edit' }).click();
        expect(await page.inputValue('textarea[name=account]')).toBe('');
        expect(await page.content()).not.toContain(inbox.url);
        await page.fill('textarea[name=args]', 'text: Fresh book: {{Title}}');
        await page.click('#automation-form button');
        await page.waitForURL(`${ws.url}/ui/automations`);

        // The rule fires on a new book; chat-notify posts to the receiver; the page shows the message.
        await command('svc.entity/create', { type: BOOK, entity: { 'bookshelf/name': 'Dune Messiah' } });
        await waitFor(
          'the rule ran',
          async () => ((await runsOf(RULE)).some((r) => r.state === 'done') ? true : undefined),
          30_000,
        );
        await page.goto(`${ws.url}/ui/type?name=${encodeURIComponent(INBOX_TYPE)}`);
        expect(await page.locator('table#entities').textContent()).toContain('Fresh book: Dune Messiah');

        // Turned off, a new book queues no run (a rule's runs are queued with the change itself).
        await page.goto(`${ws.url}/ui/automations`);
        await row.locator('button', { hasText: 'Turn off' }).click();
        await page.waitForURL(`${ws.url}/ui/automations`);
        expect(await row.locator('td.enabled').textContent()).toBe('no');
        await command('svc.entity/create', { type: BOOK, entity: { 'bookshelf/name': 'Children of Dune' } });
        expect(await runsOf(RULE)).toHaveLength(1);
        await row.locator('button', { hasText: 'Turn on' }).click();
        await page.waitForURL(`${ws.url}/ui/automations`);
        expect(await row.locator('td.enabled').textContent()).toBe('yes');
        await command('svc.entity/create', {
          type: BOOK,
          entity: { 'bookshelf/name': 'God Emperor of Dune' },
        });
        expect(await runsOf(RULE)).toHaveLength(2);

        // Delete, through its confirm page.
        await row.locator('a', { hasText: 'Delete' }).click();
        await page.click('#confirm-delete button');
        await page.waitForURL(`${ws.url}/ui/automations`);
        expect(await page.locator('table#automations tr', { hasText: RULE }).count()).toBe(0);
        expect((await api('GET', '/api/automations')).map((a: { name: string }) => a.name)).not.toContain(
          RULE,
        );
      } finally {
        await page.context().close();
      }
    }, 120_000);

    it('runs a script button on the rows chosen in a table', async () => {
      const page = await loggedIn();
      const BUTTON = 'Count chosen';
      try {
        await page.goto(`${ws.url}/ui/automations/new`);
        await page.fill('input[name=name]', BUTTON);
        await page.selectOption('select[name=trigger]', 'button');
        await page.fill('input[name=type]', BOOK);
        await page.selectOption('select[name=kind]', 'script');
        await page.fill(
          'textarea[name=code]',
          "console.log('chose ' + args.currentEntities.map((b) => b.Title).sort().join(' + '));",
        );
        await page.click('#automation-form button');
        await page.waitForURL(`${ws.url}/ui/automations`);

        await page.goto(`${ws.url}/ui/type?name=${encodeURIComponent(BOOK)}`);
        const rows = page.locator('table#entities tbody tr');
        const titles: string[] = [];
        for (const n of [1, 3]) {
          await rows.nth(n).locator('input[type=checkbox]').check();
          titles.push((await rows.nth(n).locator('td:nth-child(3)').textContent())!.trim());
        }
        await page.click(`#run-buttons button:has-text("${BUTTON}")`);
        await page.waitForURL(`${ws.url}/ui/automations`);
        const expected = `chose ${titles.sort().join(' + ')}`;
        await page.locator('table#runs td.console summary', { hasText: expected }).waitFor();
        const [run] = await runsOf(BUTTON);
        expect(run).toMatchObject({ state: 'done', console: expected });
        expect(await fitsTheWindow(page)).toBe(true);
      } finally {
        await page.context().close();
      }
    }, 120_000);

    it("chooses a source's types and filter among the app's own choices", async () => {
      const page = await loggedIn();
      try {
        await page.click(`table#sources tr[data-source="${sourceId}"] a:has-text("Types and filter")`);
        const boxes = page.locator('#source-settings input[name=type]');
        expect(
          await boxes.evaluateAll((inputs) => inputs.map((i) => (i as { value: string }).value)),
        ).toEqual(['genre', 'author', 'book']);
        // The genre filter offers the app's datalist (its 12 genres, and "any").
        const genre = page.locator('#source-settings select[name="filter.genre"]');
        const options = await genre.locator('option').allTextContents();
        expect(options).toHaveLength(13);
        await genre.selectOption({ label: options[3]! });
        const value = await genre.inputValue();
        await page.locator('#source-settings input[value=author]').uncheck();
        await page.click('#source-settings button');
        await page.waitForURL(`${ws.url}/ui`);
        const [source] = await ws.apps.list();
        expect(source).toMatchObject({ types: ['genre', 'book'], filter: { genre: value } });
        // Nothing chosen is refused with the reason.
        await page.goto(`${ws.url}/ui/sources/${sourceId}/settings`);
        for (const box of await boxes.all()) await box.uncheck();
        await page.click('#source-settings button');
        expect(await page.locator('p.error').textContent()).toBe('Choose at least one type.');
      } finally {
        await page.context().close();
      }
    }, 60_000);

    it('removes a source after a confirm', async () => {
      const page = await loggedIn();
      try {
        await page.click(`table#sources tr[data-source="${sourceId}"] a:has-text("Remove")`);
        expect(await page.locator('main').textContent()).toContain(sourceId);
        await page.click('#confirm-remove button');
        await page.waitForURL(`${ws.url}/ui`);
        expect(await page.locator(`table#sources tr[data-source="${sourceId}"]`).count()).toBe(0);
        expect(await ws.apps.list()).toHaveLength(0);
      } finally {
        await page.context().close();
      }
    }, 60_000);
  });
});
