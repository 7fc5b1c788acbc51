import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { configFromEnv } from '../src/config.js';

// The CLI entry as `pnpm workspace` runs it (the build when fresh, else the sources: see
// scripts/checkout-entry.mjs): a real process, a PGlite folder, real HTTP.

const ENTRY = join(import.meta.dirname, '..', '..', '..', 'scripts', 'workspace.mjs');
const children: ChildProcess[] = [];

function run(env: Record<string, string>): Promise<{ child: ChildProcess; lines: string[]; url: string }> {
  const child = spawn(process.execPath, ['--conditions=weft-dist', ENTRY], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const lines: string[] = [];
  return new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout!.on('data', (d) => {
      buffer += d;
      const parts = buffer.split('\n');
      buffer = parts.pop()!;
      lines.push(...parts);
      const listening = lines.find((l) => l.startsWith('Workspace listening on '));
      // The admin token, when there is one, is printed right after the address.
      if (listening && (env.EXPECT_TOKEN !== '1' || lines.some((l) => l.startsWith('Admin token: ')))) {
        resolve({ child, lines, url: listening.slice('Workspace listening on '.length) });
      }
    });
    child.on('exit', (code) => reject(new Error(`the workspace exited with ${code}`)));
  });
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

afterAll(async () => {
  for (const c of children) await stop(c);
});

describe('configFromEnv', () => {
  it.each([
    [{}, { port: 3100, rateLimit: 3, database: { kind: 'pglite', dataDir: '.weft' } }],
    [
      { PORT: '0', WEFT_DATA_DIR: ':memory:' },
      { port: 0, database: { kind: 'memory' } },
    ],
    [
      { WEFT_DATA_DIR: '/tmp/x', WEFT_RATE_LIMIT: '0' },
      { rateLimit: 0, database: { kind: 'pglite', dataDir: '/tmp/x' } },
    ],
    [
      { DATABASE_URL: 'postgres://u@h/db', WEFT_ADMIN_TOKEN: 't' },
      { database: { kind: 'postgres', url: 'postgres://u@h/db' }, adminToken: 't' },
    ],
    [
      { DATABASE_URL: 'postgres://u@h/db', WEFT_PG_SCHEMA: 'ws_1' },
      { database: { kind: 'postgres', url: 'postgres://u@h/db', schema: 'ws_1' } },
    ],
  ])('%j', (env, expected) => {
    expect(configFromEnv(env)).toMatchObject(expected);
  });
  it('reads the outbound policy: WEFT_OUTBOUND_ALLOW_PRIVATE and the WEFT_OUTBOUND_ALLOW list', () => {
    expect(configFromEnv({}).outbound).toEqual({});
    expect(
      configFromEnv({ WEFT_OUTBOUND_ALLOW_PRIVATE: '1', WEFT_OUTBOUND_ALLOW: 'files.test, 10.1.0.0/16' })
        .outbound,
    ).toEqual({ allowPrivateNetworks: true, allow: ['files.test', '10.1.0.0/16'] });
    expect(configFromEnv({ WEFT_OUTBOUND_ALLOW_PRIVATE: '0' }).outbound).toEqual({
      allowPrivateNetworks: false,
    });
  });
  it.each([{ PORT: 'x' }, { WEFT_RATE_LIMIT: '-1' }, { WEFT_OUTBOUND_ALLOW_PRIVATE: 'maybe' }])(
    'rejects %j',
    (env) => {
      expect(() => configFromEnv(env)).toThrow();
    },
  );
});

describe('pnpm workspace', () => {
  const pgUrl = process.env.WEFT_TEST_DATABASE_URL;
  if (pgUrl) {
    it('serves from Postgres with DATABASE_URL (WEFT_ADMIN_TOKEN sets the admin token)', async () => {
      const schema = `weft_cli_${process.pid}_${Date.now()}`;
      const env = {
        PORT: '0',
        DATABASE_URL: pgUrl,
        WEFT_PG_SCHEMA: schema,
        WEFT_ADMIN_TOKEN: 'cli-admin',
        WEFT_RATE_LIMIT: '0',
      };
      try {
        const { child, url, lines } = await run(env);
        expect(lines.some((l) => l.startsWith('Admin token:'))).toBe(false);
        const res = await fetch(`${url}/api/tokens`, { headers: { authorization: 'Token cli-admin' } });
        expect(res.status).toBe(200);
        await stop(child);
      } finally {
        const client = new pg.Client({ connectionString: pgUrl });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await client.end();
      }
    }, 120_000);
  } else {
    console.log('workspace CLI tests: the Postgres run is skipped because WEFT_TEST_DATABASE_URL is not set');
  }

  it('prints its address, prints a generated admin token once (first run), and keeps data in WEFT_DATA_DIR', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weft-cli-'));
    try {
      const env = {
        PORT: '0',
        WEFT_DATA_DIR: dir,
        WEFT_RATE_LIMIT: '0',
        DATABASE_URL: '',
        WEFT_ADMIN_TOKEN: '',
        HOST: '',
      };
      const first = await run({ ...env, EXPECT_TOKEN: '1' });
      // HOST unset: this machine only, and the address printed is the one listened on
      expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const token = first.lines.find((l) => l.startsWith('Admin token: '))!.slice('Admin token: '.length);
      const call = (url: string, body: unknown) =>
        fetch(`${url}/api/commands`, {
          method: 'POST',
          headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const created = await call(first.url, [
        { command: 'schema.type/create', args: { 'svc/name': 'cli/kept' } },
      ]);
      expect(((await created.json()) as any)[0].success).toBe(true);
      await stop(first.child);
      const second = await run(env);
      expect(second.lines.some((l) => l.startsWith('Admin token:'))).toBe(false);
      const schema = (await (await call(second.url, [{ command: 'svc.schema/query' }])).json()) as any;
      expect(schema[0].result['svc/types'].map((t: any) => t['svc/name'])).toContain('cli/kept');
      await stop(second.child);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
