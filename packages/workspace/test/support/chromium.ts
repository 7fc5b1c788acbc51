import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

// The headless Chromium the page tests drive: WEFT_TEST_CHROMIUM, else /usr/bin/chromium.

export const CHROMIUM =
  process.env.WEFT_TEST_CHROMIUM || (existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : '');
if (!CHROMIUM)
  console.log('page Chromium tests skipped: neither WEFT_TEST_CHROMIUM nor /usr/bin/chromium exists');

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
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
}
