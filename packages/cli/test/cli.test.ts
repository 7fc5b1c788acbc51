// `weft` in-process (run) and as the user runs it (the bin, from another folder).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestApp, testApp } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entryArgs } from '../../../scripts/test-support/checkout-node.js';
import { app as actionsApp } from '../templates/actions/src/app.js';
import { COMMANDS } from '../src/commands/index.js';
import { run } from '../src/program.js';
import { capture } from './support/capture.js';
import { cleanEnv, exec } from './support/processes.js';

let running: TestApp;
beforeAll(async () => {
  running = await testApp(actionsApp);
});
afterAll(async () => {
  await running.close();
});

describe('weft: help, version, exit statuses', () => {
  it('lists every command, with examples and the exit statuses', async () => {
    const io = capture();
    expect(await run(['--help'], io)).toBe(0);
    for (const command of COMMANDS) expect(io.out()).toContain(command.name);
    expect(io.out()).toMatch(/Examples:[\s\S]*Exit status: 0 ok, 1 findings/);
  });

  it.each(COMMANDS.map((c) => c.name))('weft %s --help has examples and exit statuses', async (name) => {
    const io = capture();
    expect(await run([name, '--help'], io)).toBe(0);
    expect(io.out()).toContain(`weft ${name}`);
    expect(io.out()).toMatch(/Examples:[\s\S]*Exit status: 0 ok, 1 /);
  });

  it('prints the version', async () => {
    const io = capture();
    expect(await run(['--version'], io)).toBe(0);
    expect(io.out().trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('answers 2 to usage errors', async () => {
    for (const argv of [
      [],
      ['nope'],
      ['init', '--template', 'mobile'],
      ['date-range'],
      ['check'],
      ['dev', 'http://127.0.0.1:9', '--namespace', 'acme'],
    ]) {
      const io = capture();
      expect(await run(argv, io), argv.join(' ')).toBe(2);
      expect(io.err(), argv.join(' ')).not.toBe('');
      if (argv.includes('--namespace')) expect(io.err()).toMatch(/--namespace must be one of svc, fibery/);
    }
  });
});

describe('weft date-range', () => {
  it('prints the range, with or without quotes, and 1 for a phrase that is not a range', async () => {
    const io = capture();
    expect(await run(['date-range', 'last', '3', 'months', '--now', '2026-11-22T10:00:00'], io)).toBe(0);
    expect(JSON.parse(io.out())).toEqual({
      _min: '2026-09-01T00:00:00.000',
      _max: '2026-11-30T23:59:59.999',
    });
    const bad = capture();
    expect(await run(['date-range', 'whenever'], bad)).toBe(1);
    expect(bad.err()).toMatch(/^weft date-range: Unexpected "whenever"/);
  });
});

describe('weft check', () => {
  it('passes the kit options through and answers 0 when nothing failed, 1 when a check failed', async () => {
    const io = capture();
    const account = JSON.stringify({ webhookUrl: 'http://127.0.0.1:9/hooks/x' });
    expect(await run(['check', running.url, '--account', account, '--no-color'], io)).toBe(0);
    expect(io.out()).toMatch(/0 failed/);
    // An account the app refuses makes the kit's validate check fail.
    const failing = capture();
    const wrong = JSON.stringify({ webhookUrl: 'ftp://nowhere' });
    expect(await run(['check', running.url, '--account', wrong, '--json'], failing)).toBe(1);
    expect(JSON.parse(failing.out()).ok).toBe(false);
  });

  it('reads file arguments from the folder weft was started in (INIT_CWD under pnpm weft)', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'weft-cli-'));
    try {
      writeFileSync(join(folder, 'account.json'), JSON.stringify({ webhookUrl: 'http://127.0.0.1:9/h/x' }));
      const weft = entryArgs('cli', 'main');
      // Started elsewhere (like pnpm runs root scripts), with the user's folder in INIT_CWD.
      const result = await exec(
        process.execPath,
        [...weft, 'check', running.url, '--account', 'account.json'],
        {
          cwd: tmpdir(),
          env: cleanEnv({ INIT_CWD: folder }),
        },
      );
      expect(result.code, result.stderr).toBe(0);
      const missing = await exec(
        process.execPath,
        [...weft, 'check', running.url, '--account', 'account.json'],
        {
          cwd: folder,
          env: cleanEnv({ INIT_CWD: tmpdir() }),
        },
      );
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(/'account.json' is neither inline JSON nor a readable file/);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
