// The start script refuses a malformed FEED_URL: exit code 1 and a message, no stack trace.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tsNodeArgs } from '../../../scripts/test-support/checkout-node.js';

const appDir = fileURLToPath(new URL('..', import.meta.url));

describe('calendar-feed: start-up', () => {
  it('exits 1 on a malformed FEED_URL', () => {
    const result = spawnSync(process.execPath, [...tsNodeArgs(), 'src/main.ts'], {
      cwd: appDir,
      env: { ...process.env, PORT: '0', FEED_URL: 'holidays=ftp://files.example/de.ics' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toBe(
      'Calendar feed cannot start: FEED_URL: ftp: feeds are not supported (use https, http or file)',
    );
  });
});
