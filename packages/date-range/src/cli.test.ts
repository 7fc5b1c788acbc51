import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { entryArgs } from '../../../scripts/test-support/checkout-node.js';

const here = dirname(fileURLToPath(import.meta.url));
// The CLI's build when fresh (`pnpm test` builds first), else its source through tsx.
const cli = entryArgs('date-range', 'cli');

function run(...args: string[]) {
  const result = spawnSync(process.execPath, [...cli, ...args], {
    cwd: join(here, '..'),
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

// Each case starts Node (with tsx when there is no fresh build), which takes seconds on a busy machine.
describe('date-range CLI', { timeout: 60_000 }, () => {
  it('prints the range as 2-space JSON', () => {
    expect(run('last 3 months', '--now', '2026-11-22T10:00:00')).toStrictEqual({
      status: 0,
      stdout: '{\n  "_min": "2026-09-01T00:00:00.000",\n  "_max": "2026-11-30T23:59:59.999"\n}\n',
      stderr: '',
    });
  });

  it('omits open bounds', () => {
    expect(run('from 1-10-2026', '--now', '2026-11-22').stdout).toBe(
      '{\n  "_min": "2026-10-01T00:00:00.000"\n}\n',
    );
  });

  it('joins unquoted words', () => {
    expect(JSON.parse(run('previous', 'month', '--now', '2026-11-22').stdout)).toStrictEqual({
      _min: '2026-10-01T00:00:00.000',
      _max: '2026-10-31T23:59:59.999',
    });
  });

  it('applies --tz', () => {
    expect(
      JSON.parse(run('today', '--now', '2026-11-22T23:30:00Z', '--tz', 'Europe/Berlin').stdout),
    ).toStrictEqual({
      _min: '2026-11-23T00:00:00.000',
      _max: '2026-11-23T23:59:59.999',
    });
  });

  it('applies --lenient', () => {
    expect(run('March 5, 2024', '--now', '2026-11-22').status).toBe(1);
    expect(JSON.parse(run('March 5, 2024', '--now', '2026-11-22', '--lenient').stdout)).toStrictEqual({
      _min: '2024-03-05T00:00:00.000',
      _max: '2024-03-05T23:59:59.999',
    });
  });

  it('reports errors on stderr with exit code 1', () => {
    expect(run('last 3 months foo', '--now', '2026-11-22')).toStrictEqual({
      status: 1,
      stdout: '',
      stderr: 'error: Unexpected "foo" at position 14 in "last 3 months foo": expected end of input\n',
    });
    expect(run('today', '--tz', 'Mars/Base').stderr).toMatch(/^error: Invalid time zone "Mars\/Base"/);
  });

  it('prints usage for --help', () => {
    const result = run('--help');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^Usage: date-range "<phrase>"/);
  });

  it('fails with usage on a missing phrase or unknown option', () => {
    const missing = run();
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/^error: missing the date-range phrase\n\nUsage:/);
    const unknown = run('today', '--bogus');
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toMatch(/^error: .*--bogus/);
  });
});
