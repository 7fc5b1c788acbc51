import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { PNG } from 'pngjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { BOOK, type Seeded, seedBookshelf } from './support/bookshelf-seed.js';
import { databaseTargets, useWorkspace } from './support/databases.js';

// The page in a real headless Chromium: log in, open a type, follow a relation, save screenshots
// and check they show something (pixel variance well above a blank page's zero). The bookshelf is
// seeded through the workspace's own commands, shaped like what syncing apps/bookshelf gives.
// WEFT_SCREENSHOTS=<dir> keeps the screenshots there (docs/images was made that way).

const CHROMIUM =
  process.env.WEFT_TEST_CHROMIUM || (existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : '');
if (!CHROMIUM)
  console.log('page Chromium test skipped: neither WEFT_TEST_CHROMIUM nor /usr/bin/chromium exists');

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
  const h = useWorkspace(databaseTargets()[0]!);
  let seeded: Seeded;
  const dir = process.env.WEFT_SCREENSHOTS || join(tmpdir(), `weft-page-shots-${process.pid}`);

  beforeAll(async () => {
    seeded = await seedBookshelf(h, 12);
    mkdirSync(dir, { recursive: true });
  });

  it('logs in, opens a type, follows a relation, and renders non-blank pages', async () => {
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1000, height: 640 } });
      const blank = greyDeviation(await page.screenshot());
      expect(blank).toBe(0);

      await page.goto(`${h.url}/ui`);
      expect(new URL(page.url()).pathname).toBe('/ui/login');
      await page.fill('input[name=token]', h.token);
      await page.click('button');
      await page.waitForURL(`${h.url}/ui`);
      expect(page.url()).not.toContain(h.token);
      const cookies = await page.context().cookies();
      expect(cookies.find((c) => c.name === 'weft_page')).toMatchObject({
        httpOnly: true,
        sameSite: 'Strict',
      });

      await page.click(`a[href="/ui/type?name=${encodeURIComponent(BOOK)}"]`);
      await page.waitForSelector('table#entities');
      expect(await page.locator('table#entities tbody tr').count()).toBe(12);
      const table = await page.screenshot();
      writeFileSync(join(dir, 'page-type.png'), table);
      expect(greyDeviation(table)).toBeGreaterThan(10);

      // Follow the first book's author relation to the author's page.
      await page.click('table#entities tbody tr:first-child a[href*="bookshelf%2Fauthor"]');
      await page.waitForSelector('table#entity');
      expect(page.url()).toContain(seeded.authors[0]);
      expect(await page.locator('table#entity').textContent()).toContain('Ursula K. Le Guin');

      // And back through the collection side to the book, with its rich text rendered.
      await page.click('text=The Dispossessed');
      await page.waitForSelector('.rich h1');
      expect(await page.locator('.rich h1').textContent()).toBe('An ambiguous utopia');
      expect(await page.locator('.rich script').count()).toBe(0);
      const detail = await page.screenshot({ fullPage: true });
      writeFileSync(join(dir, 'page-entity.png'), detail);
      expect(greyDeviation(detail)).toBeGreaterThan(10);
    } finally {
      await browser.close();
    }
  });
});
