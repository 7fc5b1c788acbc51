// The page's Verify button in a real headless Chromium: a source whose app keeps no safety margin
// is synced, a task is deleted and a project renamed upstream (by a clock 30 s late), a delta sync
// runs and misses both; Verify shows the row the delta never removed and the values it never
// updated, with both sides.
import { existsSync } from 'node:fs';
import { type TestApp, testApp } from '@weft/core/testing';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Tracker, trackerApp } from '../../sync-engine/test/drift-apps.js';
import { SecretBox } from '../src/host/secret-box.js';
import { type HostedWorkspace, startHostedWorkspace } from '../src/host/start-hosted-workspace.js';

const CHROMIUM =
  process.env.WEFT_TEST_CHROMIUM || (existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : '');
if (!CHROMIUM)
  console.log('page Verify test skipped: neither WEFT_TEST_CHROMIUM nor /usr/bin/chromium exists');

describe.runIf(CHROMIUM)('Verify on the page, in Chromium', () => {
  const TOKEN = 'page-verify-admin-token';
  const tracker = new Tracker();
  let app: TestApp;
  let ws: HostedWorkspace;

  beforeAll(async () => {
    app = await testApp(trackerApp(tracker, 'margin'));
    ws = await startHostedWorkspace({
      adminToken: TOKEN,
      rateLimit: 0,
      webhooks: false,
      box: new SecretBox('page-verify-key'),
      hostOptions: { scheduleEveryMs: 0 },
      log: () => {},
    });
  });
  afterAll(async () => {
    await ws?.close();
    await app?.close();
  });

  it('shows what the delta never removed and never updated', async () => {
    const source = await ws.apps.addSource({ url: app.url });
    await ws.apps.sync(source.id, { wait: true });
    tracker.batch(() => {
      tracker.remove('t02');
      tracker.renameProject('p1', 'Orchard');
    });
    await ws.apps.sync(source.id, { wait: true });

    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
      ],
    });
    try {
      const page = await browser.newPage();
      page.setDefaultTimeout(20_000);
      await page.goto(`${ws.url}/ui`);
      await page.fill('input[name=token]', TOKEN);
      await page.click('button');
      await page.waitForURL(`${ws.url}/ui`);
      await page.click(`form[action="/ui/sources/${source.id}/verify"] button`);
      await page.waitForSelector('#verify-outcome');
      expect(await page.locator('#verify-outcome').textContent()).toContain('The workspace drifted');
      const body = (await page.locator('main, body').first().textContent()) ?? '';
      expect(body).toContain('task: 0 missing, 1 extra, 3 changed');
      expect(body).toMatch(/Extra \(the syncs never removed them\): [0-9a-f-]{36} \(Task 2\)/);
      const changed = await page.locator('table.verify-changed tr').nth(1).locator('td').allTextContents();
      expect(changed).toEqual(['t01', 'project', '"Garden"', '"Orchard"']);
      // The verify run is listed with the others.
      await page.goto(`${ws.url}/ui`);
      expect(await page.locator('table#sync-runs').textContent()).toContain('verify');
    } finally {
      await browser.close();
    }
  }, 90_000);
});
