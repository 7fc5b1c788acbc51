import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, testApp } from '@weft/core/testing';
import { bookshelfApp } from '../../../apps/bookshelf/src/app.js';
import { BOOK_COUNT } from '../../../apps/bookshelf/src/dataset.js';
import { SecretBox } from '../src/host/secret-box.js';
import { type HostedWorkspace, startHostedWorkspace } from '../src/host/start-hosted-workspace.js';
import { CHROMIUM, launchChromium } from './support/chromium.js';

// The page in a real headless Chromium: apps/bookshelf added and synced through the app host, then
// log in, see the source and its sync run, open a type, follow a relation, save screenshots and
// check they show something (pixel variance well above a blank page's zero).
// WEFT_SCREENSHOTS=<dir> keeps the screenshots there (docs/images was made that way).

/** Standard deviation of the grey level over all pixels: 0 for a blank image. */
function greyDeviation(png: Buffer): number {
  const image = PNG.sync.read(png);
  let sum = 0;
  let sq = 0;
  const n = image.width * image.height;
  for (let i = 0; i < image.data.length; i += 4) {
    const g = (image.data[i]! + image.data[i + 1]! + image.data[i + 2]!) / 3;
    sum += g;
    sq += g * g;
  }
  const mean = sum / n;
  return Math.sqrt(sq / n - mean * mean);
}

describe.runIf(CHROMIUM)('page in Chromium', () => {
  const TOKEN = 'page-chromium-admin-token';
  let app: TestApp;
  let ws: HostedWorkspace;
  const dir = process.env.WEFT_SCREENSHOTS || join(tmpdir(), `weft-page-shots-${process.pid}`);

  beforeAll(async () => {
    mkdirSync(dir, { recursive: true });
    app = await testApp(bookshelfApp);
    ws = await startHostedWorkspace({
      adminToken: TOKEN,
      rateLimit: 0,
      webhooks: false,
      box: new SecretBox('page-test-key'),
      hostOptions: { scheduleEveryMs: 0 },
      log: () => {},
    });
  });
  afterAll(async () => {
    await ws?.close();
    await app?.close();
  });

  it('logs in, sees the sync, opens a type, follows a relation, and renders non-blank pages', async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1100, height: 640 } });
      page.setDefaultTimeout(20_000);
      // A committed, rendered empty document first: a page just opened may have no frame yet to
      // capture, which a loaded machine showed once ("Unable to capture screenshot").
      await page.setContent('<!doctype html><title>blank</title>');
      const blank = greyDeviation(await page.screenshot());
      expect(blank).toBe(0);

      await page.goto(`${ws.url}/ui`);
      expect(new URL(page.url()).pathname).toBe('/ui/login');
      await page.fill('input[name=token]', TOKEN);
      await page.click('button');
      await page.waitForURL(`${ws.url}/ui`);
      expect(page.url()).not.toContain(TOKEN);
      const cookies = await page.context().cookies();
      expect(cookies.find((c) => c.name === 'weft_page')).toMatchObject({
        httpOnly: true,
        sameSite: 'Strict',
      });

      // Add apps/bookshelf through the page (the host validates it), then sync it and watch the
      // run's state change live (server-sent events) until it succeeds.
      await page.click('a[href="/ui/sources/new"]');
      await page.fill('input[name=url]', app.url);
      await page.click('form[action="/ui/sources/new"] button');
      await page.click('text=Add and validate');
      // Then its types and filter (the app's defaults kept).
      await page.waitForURL(/\/ui\/sources\/[^/]+\/settings/);
      await page.click('#source-settings button');
      await page.waitForURL(`${ws.url}/ui`);
      expect(await page.locator('table#sources').textContent()).toContain('Bookshelf');
      await page.click('text=Sync now');
      await page.waitForURL(`${ws.url}/ui`);
      // (Only the page's script changes the badge after the page was served.)
      await page
        .locator('table#sync-runs .state .badge', { hasText: 'succeeded' })
        .first()
        .waitFor({ timeout: 60_000 });
      await page.reload();
      const overview = await page.screenshot({ fullPage: true });
      writeFileSync(join(dir, 'page-overview.png'), overview);
      expect(greyDeviation(overview)).toBeGreaterThan(10);

      await page.click('a[href="/ui/type?name=bookshelf%2Fbook"]');
      await page.waitForSelector('table#entities');
      expect(await page.locator('table#entities tbody tr').count()).toBe(25);
      expect(await page.locator('a[rel=next]').count()).toBe(BOOK_COUNT > 25 ? 1 : 0);
      const table = await page.screenshot();
      writeFileSync(join(dir, 'page-type.png'), table);
      expect(greyDeviation(table)).toBeGreaterThan(10);

      // Follow the first book's author relation to the author's page.
      const authorLink = page.locator('table#entities tbody tr:first-child a[href*="bookshelf%2Fauthor"]');
      const authorName = (await authorLink.textContent())?.trim();
      expect(authorName).toBeTruthy();
      await authorLink.click();
      await page.waitForSelector('table#entity');
      expect(page.url()).toContain('type=bookshelf%2Fauthor');
      expect(await page.locator('table#entity').textContent()).toContain(authorName);
      const detail = await page.screenshot({ fullPage: true });
      writeFileSync(join(dir, 'page-entity.png'), detail);
      expect(greyDeviation(detail)).toBeGreaterThan(10);

      // And back through the collection side to one of the author's books.
      await page.locator('table#entity a[href*="bookshelf%2Fbook"]').first().click();
      await page.waitForSelector('table#entity');
      expect(page.url()).toContain('type=bookshelf%2Fbook');
      expect(await page.locator('table#entity').textContent()).toContain(authorName);

      // A run queued after the automations page was served appears there, with its script's console
      // (live: only the page's script adds it).
      const api = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`${ws.url}${path}`, {
          method,
          headers: { authorization: `Token ${TOKEN}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        expect(res.status, path).toBeLessThan(300);
        return res.json() as Promise<any>;
      };
      const [found] = (await api('POST', '/api/commands', [
        {
          command: 'svc.entity/query',
          args: { query: { 'q/from': 'bookshelf/book', 'q/select': ['svc/id'], 'q/limit': 1 } },
        },
      ])) as Array<{ result: Array<{ 'svc/id': string }> }>;
      const book = found!.result[0];
      const automation = await api('POST', '/api/automations', {
        name: 'Talks',
        trigger: 'button',
        type: 'bookshelf/book',
        action: {
          kind: 'script',
          code: "console.log('checked <b>' + args.currentEntities.length + '</b> book'); console.log('second line'); return 1;",
        },
      });
      await page.goto(`${ws.url}/ui/automations`);
      await page.waitForSelector('table#runs');
      await api('POST', `/api/automations/${automation.id}/run`, { entityIds: [book!['svc/id']] });
      const summary = page.locator('table#runs td.console summary', { hasText: 'checked <b>1</b> book' });
      await summary.waitFor({ timeout: 30_000 });
      expect(await summary.textContent()).toContain('(2 lines)');
      await summary.click();
      expect(await page.locator('table#runs td.console pre').first().textContent()).toContain('second line');
    } finally {
      await browser.close();
    }
  }, 120_000);
});
