// The start script refuses a bad configuration: exit code 1, a message naming the variable, no secret.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tsNodeArgs } from '../../../scripts/test-support/checkout-node.js';

const appDir = fileURLToPath(new URL('..', import.meta.url));

describe('dispatch: start-up', () => {
  it('exits 1 on a malformed SMTP_URL without printing its password', () => {
    const result = spawnSync(process.execPath, [...tsNodeArgs(), 'src/main.ts'], {
      cwd: appDir,
      env: { ...process.env, PORT: '0', SMTP_URL: 'https://mailer:hunter2-pass@mail.example.com' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('Dispatch cannot start: SMTP_URL: SMTP_URL must be smtp:// or smtps://');
    expect(result.stdout + result.stderr).not.toContain('hunter2');
  });
});
