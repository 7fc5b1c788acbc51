// The page's "Full sync" button in a real headless Chromium: a source whose app answers a delta
// with nothing (nothing changed) is synced once; "Sync now" then runs a delta, and "Full sync" a
// full sync that sends every row again, its run labelled as full and why.
import { auth, defineApp, field } from '@weft/core';
import { type TestApp, testApp } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHostedOn } from '../src/host/fixtures/hosted-on.js';
import type { HostedWorkspace } from '../src/host/start-hosted-workspace.js';
import { CHROMIUM, launchChromium } from './support/chromium.js';
import { databaseTargets } from './support/databases.js';

const app = defineApp({
  id: 'ledger',
  name: 'Ledger',
  version: '1.0.0',
  description: 'sends nothing in a delta',
  website: 'http://127.0.0.1/',
  authentication: [auth.none({ name: 'None' })],
  sync: {
    types: {
      entry: {
        name: 'Entries',
        delta: true,
        fields: { id: field.id(), name: field.title({ name: 'Name' }) },
        async *data({ mode }) {
          if (mode === 'delta') return;
          yield { id: 'e1', name: 'One' };
          yield { id: 'e2', name: 'Two' };
          yield { id: 'e3', name: 'Three' };
        },
      },
    },
  },
});

const TOKEN = 'page-full-sync-admin-token';

for (const target of databaseTargets()) {
  describe.runIf(CHROMIUM)(`the page's Full sync button [${target.name}]`, () => {
    let served: TestApp;
    let ws: HostedWorkspace;
    let stopWorkspace: () => Promise<void> = async () => {};
    beforeAll(async () => {
      served = await testApp(app);
      ({ ws, close: stopWorkspace } = await startHostedOn(target, 'page-full-sync', { adminToken: TOKEN }));
    });
    afterAll(async () => {
      await stopWorkspace();
      await served?.close();
    });

    it('runs a full sync that sends every row again, labelled as asked for', async () => {
      const source = await ws.apps.addSource({ url: served.url });
      expect(await ws.apps.sync(source.id, { wait: true })).toMatchObject({ rowsSet: 3 });
      const browser = await launchChromium();
      try {
        const page = await browser.newPage({ viewport: { width: 1200, height: 700 } });
        page.setDefaultTimeout(30_000);
        await page.goto(`${ws.url}/ui/login`);
        await page.fill('input[name=token]', TOKEN);
        await page.click('button');
        await page.waitForURL(`${ws.url}/ui`);

        await page.click('table#sources button:text-is("Sync now")');
        await page.waitForURL(`${ws.url}/ui`);
        await expect.poll(async () => (await ws.apps.runs(source.id)).length, { timeout: 30_000 }).toBe(2);
        await expect
          .poll(async () => (await ws.apps.runs(source.id))[0]?.status, { timeout: 30_000 })
          .toBe('succeeded');
        expect((await ws.apps.runs(source.id))[0]).toMatchObject({ mode: 'delta', rowsSet: 0 });

        await page.click('table#sources button:text-is("Full sync")');
        await page.waitForURL(`${ws.url}/ui`);
        await expect.poll(async () => (await ws.apps.runs(source.id)).length, { timeout: 30_000 }).toBe(3);
        await expect
          .poll(async () => (await ws.apps.runs(source.id))[0]?.status, { timeout: 30_000 })
          .toBe('succeeded');
        expect((await ws.apps.runs(source.id))[0]).toMatchObject({
          mode: 'full',
          rowsSet: 3,
          fullReason: 'asked for',
        });
        await page.reload();
        expect(await page.locator('table#sync-runs tr[data-sync]').first().textContent()).toContain(
          'manual (full: asked for)',
        );
      } finally {
        await browser.close();
      }
    }, 180_000);
  });
}
