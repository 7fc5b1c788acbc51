// The start script refuses a DATABASE_URL that is not Postgres: exit 1 and a message that does
// not echo the URL (it may hold a password), no stack trace. On the embedded database it says
// "listening" only once the database is open, and shuts it down on SIGTERM.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tsNodeArgs } from '../../../scripts/test-support/checkout-node.js';

const appDir = fileURLToPath(new URL('..', import.meta.url));

describe('sql-tables: start-up', () => {
  it('exits 1 on a DATABASE_URL that is not Postgres', () => {
    const result = spawnSync(process.execPath, [...tsNodeArgs(), 'src/main.ts'], {
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

describe('sql-tables: start-up and shutdown on the embedded database', () => {
  it('says "listening" once the database answers, and closes it on SIGTERM', async () => {
    // A temporary directory of its own, to see the demo's cluster removed on exit.
    const tmp = await mkdtemp(join(tmpdir(), 'weft-sqlmain-'));
    const child = spawn(process.execPath, [...tsNodeArgs(), 'src/main.ts'], {
      cwd: appDir,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: '', TMPDIR: tmp },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // (tsx keeps its cache there too.)
    const demoClusters = async () =>
      (await readdir(tmp)).filter((f) => f.startsWith('weft-sql-tables-demo-'));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const found = /listening on (http:\/\/\S+)/.exec(out);
          if (found) resolve(found[1]!);
        });
        child.once('exit', (code) => reject(new Error(`exited ${code} before listening`)));
      });
      // At "listening" the demo's cluster is created and open (created, it has its PG_VERSION;
      // announced earlier, initdb would still be running in its child process).
      const clusters = await demoClusters();
      expect(clusters).toHaveLength(1);
      expect(await readdir(join(tmp, clusters[0]!))).toContain('PG_VERSION');
      const response = await fetch(`${url}/validate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id: 'database', fields: { schemas: 'public' } }),
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ name: 'postgres (public)' });
      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      expect(code).toBe(0);
      expect(await demoClusters()).toEqual([]);
    } finally {
      child.kill('SIGKILL');
      await rm(tmp, { recursive: true, force: true });
    }
  }, 120_000);
});
