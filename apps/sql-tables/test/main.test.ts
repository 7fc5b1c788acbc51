// The start script refuses a DATABASE_URL that is not Postgres: exit 1 and a message that does
// not echo the URL (it may hold a password), no stack trace.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const appDir = fileURLToPath(new URL('..', import.meta.url));

describe('sql-tables: start-up', () => {
  it('exits 1 on a DATABASE_URL that is not Postgres', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: appDir,
      env: { ...process.env, PORT: '0', DATABASE_URL: 'mysql://root:hunter2@db.example/shop' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toBe(
      'SQL tables cannot start: DATABASE_URL must start with postgres:// or postgresql://',
    );
  });
});
