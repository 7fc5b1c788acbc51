// A sync run's exchanges on the page, in a real headless Chromium: the overview links each run to
// its table of data requests; a run that succeeded shows its pages (status, items, the reader's
// warning, the request with the passcode redacted), a failed one the app's error body; and the
// passcode appears nowhere on either page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '../src/host/secret-box.js';
import { type HostedWorkspace, startHostedWorkspace } from '../src/host/start-hosted-workspace.js';
import { CHROMIUM, launchChromium } from './support/chromium.js';
import { PASSCODE, serveExchangeApp } from './support/exchange-app.js';

describe.runIf(CHROMIUM)('sync run exchanges on the page in Chromium', () => {
  const TOKEN = 'page-exchanges-admin-token';
  let app: Awaited<ReturnType<typeof serveExchangeApp>>;
  let ws: HostedWorkspace;
  const runs: { ok: string; failed: string } = { ok: '', failed: '' };

  beforeAll(async () => {
    app = await serveExchangeApp();
    ws = await startHostedWorkspace({
      adminToken: TOKEN,
      rateLimit: 0,
      webhooks: false,
      box: new SecretBox('page-exchanges-test-key'),
      hostOptions: { scheduleEveryMs: 0 },
      log: () => {},
    });
    const source = await ws.apps.addSource({ url: app.url, fields: { passcode: PASSCODE }, types: ['note'] });
    runs.ok = (await ws.apps.sync(source.id, { wait: true })).id;
    await ws.apps.updateSource(source.id, { types: ['bad'] });
    runs.failed = (await ws.apps.sync(source.id, { wait: true })).id;
  }, 60_000);
  afterAll(async () => {
    await ws?.close();
    await app?.close();
  });

  it("shows each run's pages, a failing page's error body, and the passcode nowhere", async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1100, height: 700 } });
      page.setDefaultTimeout(20_000);
      await page.goto(`${ws.url}/ui/login`);
      await page.fill('input[name=token]', TOKEN);
      await page.click('button');
      await page.waitForURL(`${ws.url}/ui`);

      // The newest run (the failed one) first; its link leads to its exchanges.
      await page.click(`table#sync-runs a.exchanges[href="/ui/runs/${runs.failed}"]`);
      await page.waitForSelector('table#exchanges');
      const failed = page.locator('table#exchanges tr.exchange');
      expect(await failed.count()).toBe(1);
      expect(await failed.locator('td.status').textContent()).toBe('500');
      expect(await failed.locator('pre.error-body').textContent()).toMatch(
        /^\{"message":"The shop refused passcode \[redacted\]","detail":"x+/,
      );
      expect(await page.locator('p.run-error').textContent()).toContain(
        'The shop refused passcode [redacted]',
      );
      expect(await page.content()).not.toContain(PASSCODE);

      await page.goto(`${ws.url}/ui`);
      await page.click(`table#sync-runs a.exchanges[href="/ui/runs/${runs.ok}"]`);
      await page.waitForSelector('table#exchanges');
      const rows = page.locator('table#exchanges tr.exchange');
      expect(await rows.count()).toBe(2);
      expect(await rows.locator('td.status').allTextContents()).toEqual(['200', '200']);
      expect(await rows.locator('td.items').allTextContents()).toEqual(['2', '1']);
      expect(await rows.nth(1).locator('td.warnings').textContent()).toBe(
        'data.pagination: missing: read as the last page',
      );
      await rows.nth(1).locator('summary').click();
      const request = await rows.nth(1).locator('pre.request').textContent();
      expect(request).toContain('"passcode":"[redacted]"');
      expect(request).toContain('"pagination":{"page":2}');
      expect(await page.content()).not.toContain(PASSCODE);
    } finally {
      await browser.close();
    }
  }, 120_000);
});
