// The start script refuses a GITHUB_API_URL that is not an http(s) address: exit 1 and a
// message, no stack trace.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tsNodeArgs } from '../../../scripts/test-support/checkout-node.js';

const appDir = fileURLToPath(new URL('..', import.meta.url));

describe('git-issues: start-up', () => {
  it('exits 1 on a GITHUB_API_URL that is not http(s)', () => {
    const result = spawnSync(process.execPath, [...tsNodeArgs(), 'src/main.ts'], {
      cwd: appDir,
      env: { ...process.env, PORT: '0', GITHUB_API_URL: 'ftp://github.example' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toBe('Git issues cannot start: GITHUB_API_URL must be an http(s) address');
  });

  it('exits 1 when configured for a real GitHub without GITHUB_WEBHOOK_SECRET', () => {
    const { GITHUB_WEBHOOK_SECRET: _unset, ...env } = process.env;
    const result = spawnSync(process.execPath, [...tsNodeArgs(), 'src/main.ts'], {
      cwd: appDir,
      env: { ...env, PORT: '0', OAUTH2_CLIENT_ID: 'client', OAUTH2_CLIENT_SECRET: 'secret' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toBe(
      'Git issues cannot start: GITHUB_WEBHOOK_SECRET must be set (the secret GitHub signs webhook events with)',
    );
  });
});
