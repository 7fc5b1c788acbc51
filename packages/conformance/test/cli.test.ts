import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entryArgs } from '../../../scripts/test-support/checkout-node.js';
import { main } from '../src/cli-main.js';
import { type ConformanceReport, runConformanceCli } from '../src/index.js';
import { ACCOUNT, ACTIONS_FIXTURE, type ReferenceApp, startReferenceApp } from './fixtures/reference-app.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

/** Spawns the CLI asynchronously (the app under test answers from this same process). */
function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...entryArgs('conformance', 'cli'), ...args], {
      cwd: packageDir,
      env: { ...process.env, NO_COLOR: '1' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs the CLI in-process (for the cases that need no real process). */
async function inProcess(
  args: string[],
  tty = false,
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, {
    stdout: { write: (t: string) => (stdout += t), isTTY: tty },
    stderr: { write: (t: string) => (stderr += t), isTTY: tty },
    env: {},
  });
  return { code, stdout, stderr };
}

let good: ReferenceApp;
let broken: ReferenceApp;
let warning: ReferenceApp;
let dir: string;
beforeAll(async () => {
  good = await startReferenceApp();
  broken = await startReferenceApp({ fault: 'items-keyed' });
  warning = await startReferenceApp({ fault: 'logo-missing' });
  dir = mkdtempSync(join(tmpdir(), 'weft-conformance-'));
  writeFileSync(join(dir, 'actions.json'), JSON.stringify(ACTIONS_FIXTURE));
  writeFileSync(join(dir, 'account.json'), JSON.stringify(ACCOUNT));
});
afterAll(async () => {
  await good.close();
  await broken.close();
  await warning.close();
});

describe('weft-conformance CLI', () => {
  it('exits 0 and prints the text report when no check fails', async () => {
    const run = await cli([
      good.url,
      '--account',
      JSON.stringify(ACCOUNT),
      '--actions',
      join(dir, 'actions.json'),
    ]);
    // Nothing on stderr but the plain progress line the CLI prints every 2 s off a TTY: a run on
    // a loaded machine (the app answers from this busy test process) can take that long.
    expect(run.stderr).toMatch(/^((delta-)?syncing \w+: page \d+, [\d,]+ items\n)*$/);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('PASS data.items');
    expect(run.stdout).toMatch(/\d+ passed, 0 failed, 0 warned/);
  }, 20_000);

  it('exits 1 when a check fails, and --json prints only the report', async () => {
    const run = await cli([
      broken.url,
      '--account',
      join(dir, 'account.json'),
      '--json',
      '--timeout',
      '2000',
    ]);
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as ConformanceReport;
    expect(report.ok).toBe(false);
    expect(report.checks.find((c) => c.id === 'data.items' && c.status === 'fail')?.title).toContain(
      '(user)',
    );
  }, 20_000);

  it('exits 2 on a usage error, in a real process', async () => {
    const run = await cli(['not-a-url']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('not an http(s) URL');
    expect(run.stdout).toBe('');
  }, 20_000);

  it('reads --filter, --max-pages and --now', async () => {
    const run = await inProcess([
      good.url,
      '--account',
      JSON.stringify(ACCOUNT),
      '--filter',
      '{"created": "last 3 months"}',
      '--max-pages',
      '5',
      '--now',
      '2026-11-22T10:00:00',
      '--json',
    ]);
    expect(run.code).toBe(0);
    const data = good.requests.filter((r) => r.path === '/api/v1/synchronizer/data').at(-1)!;
    expect((data.body as { filter: unknown }).filter).toEqual({
      created: { _min: '2026-09-01T00:00:00.000', _max: '2026-11-30T23:59:59.999' },
    });
  }, 20_000);

  it.each([
    [[], 'missing <app-url>'],
    [['not-a-url'], 'not an http(s) URL'],
    [['http://127.0.0.1:1', '--max-pages', 'many'], '--max-pages: expected a positive integer'],
    [['http://127.0.0.1:1', '--account', '{oops'], '--account: not valid JSON'],
    [
      ['http://127.0.0.1:1', '--account', '/nonexistent/account.json'],
      'neither inline JSON nor a readable file',
    ],
    [['http://127.0.0.1:1', '--bogus'], "Unknown option '--bogus'"],
  ])(
    'exits 2 on a usage error: %j',
    async (args, message) => {
      const run = await inProcess(args);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(message);
      expect(run.stdout).toBe('');
    },
    20_000,
  );

  it('exits 2 when a date filter is not in the grammar', async () => {
    const run = await inProcess([
      good.url,
      '--account',
      JSON.stringify(ACCOUNT),
      '--filter',
      '{"created": "someday"}',
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('filter `created`');
  });

  it('shows progress on a TTY as one updating line, and colours', async () => {
    const run = await inProcess([good.url, '--account', JSON.stringify(ACCOUNT)], true);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('\r\u001b[Ksyncing issue: page 3, 25 items');
    expect(run.stderr.endsWith('\r\u001b[K')).toBe(true);
    expect(run.stdout).toContain('\u001b[32mPASS\u001b[0m');
  });

  it('--strict exits 1 when a check only warns; without it the run passes', async () => {
    const args = [warning.url, '--account', JSON.stringify(ACCOUNT), '--json'];
    const lenient = await inProcess(args);
    expect(lenient.code).toBe(0);
    const strict = await inProcess([...args, '--strict']);
    expect(strict.code).toBe(1);
    const report = JSON.parse(strict.stdout) as ConformanceReport;
    expect(report).toMatchObject({ ok: false, strict: true, summary: { failed: 0 } });
    expect(report.summary.warned).toBeGreaterThan(0);
  });

  it('--last-synchronized-at sets the delta sync time', async () => {
    const before = good.requests.length;
    const run = await inProcess([
      good.url,
      '--account',
      JSON.stringify(ACCOUNT),
      '--last-synchronized-at',
      '2026-01-01T00:00:00Z',
      '--json',
    ]);
    expect(run.code).toBe(0);
    const delta = good.requests
      .slice(before)
      .filter((r) => (r.body as { lastSynchronizedAt?: unknown } | undefined)?.lastSynchronizedAt);
    expect(delta.length).toBeGreaterThan(0);
    expect(
      delta.every(
        (r) => (r.body as { lastSynchronizedAt: string }).lastSynchronizedAt === '2026-01-01T00:00:00.000Z',
      ),
    ).toBe(true);
    const bad = await inProcess([good.url, '--last-synchronized-at', 'yesterday-ish']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--last-synchronized-at: not an ISO date');
  });

  it('exits 2 with "is the app running" when nothing listens at the URL', async () => {
    // A port that was just free: nothing listens on it.
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const url = `http://127.0.0.1:${port}`;
    const run = await inProcess([url]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `weft-conformance: could not connect to ${url} (ECONNREFUSED): is the app running at ${url}?\n`,
    );
    expect(run.stdout).toBe('');
  });

  it('runConformanceCli reads relative paths from the given cwd and names the wrapper in messages', async () => {
    let stdout = '';
    let stderr = '';
    const io = {
      cwd: dir,
      programName: 'weft check',
      stdout: { write: (t: string) => (stdout += t) },
      stderr: { write: (t: string) => (stderr += t) },
      env: {},
    };
    const code = await runConformanceCli(
      [good.url, '--account', 'account.json', '--actions', 'actions.json', '--json'],
      io,
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(
      (JSON.parse(stdout) as ConformanceReport).checks.find((c) => c.id === 'actions.success')?.status,
    ).toBe('pass');
    stdout = '';
    expect(await runConformanceCli([good.url, '--account', 'missing.json'], io)).toBe(2);
    expect(stderr).toContain(
      "weft check: --account: 'missing.json' is neither inline JSON nor a readable file",
    );
    expect(stderr).toContain('usage: weft check <app-url>');
  });

  it('prints usage with --help', async () => {
    const run = await inProcess(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('usage: weft-conformance <app-url>');
  });

  it('runs from its bin in the checkout, as `pnpm conformance` does (the build, or the sources without one)', () => {
    const run = spawnSync(process.execPath, ['--conditions=weft-dist', 'bin/weft-conformance.js', '--help'], {
      cwd: packageDir,
      encoding: 'utf8',
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('usage: weft-conformance <app-url>');
  }, 60_000);
});
