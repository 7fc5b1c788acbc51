// `weft invoke` as a user runs it: the real CLI spawned against a real app listening on a port
// (and once as a module the command starts), each operation, the account's token never printed
// (not in requests, not in an error the app echoes it in), `--json` parsable, and bad arguments
// refused with status 2 before any request is sent.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entryArgs } from '../../../scripts/test-support/checkout-node.js';
import { GOOD_TOKEN, serveShelf } from './fixtures/invoke-app.js';
import { run } from '../src/program.js';
import { capture } from './support/capture.js';
import { cleanEnv, exec, type Finished } from './support/processes.js';

const fixture = fileURLToPath(new URL('./fixtures/invoke-app.ts', import.meta.url));
const folder = mkdtempSync(join(tmpdir(), 'weft-invoke-'));
const account = JSON.stringify({ token: GOOD_TOKEN });
let app: Awaited<ReturnType<typeof serveShelf>>;

beforeAll(async () => {
  app = await serveShelf();
  writeFileSync(join(folder, 'account.json'), account);
  writeFileSync(join(folder, 'event.json'), JSON.stringify({ book: { id: 'b9', name: 'Nine' } }));
});
afterAll(async () => {
  await app.close();
  rmSync(folder, { recursive: true, force: true });
});

const weft = (...args: string[]): Promise<Finished> =>
  exec(process.execPath, [...entryArgs('cli', 'main'), 'invoke', ...args], {
    // Started as `pnpm weft` starts it: in the package, the user's folder in INIT_CWD.
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    env: cleanEnv({ INIT_CWD: folder }),
  });

const noSecret = (r: Finished) => {
  expect(r.stdout).not.toContain(GOOD_TOKEN);
  expect(r.stderr).not.toContain(GOOD_TOKEN);
};

interface Report {
  exchanges: {
    method: string;
    path: string;
    status?: number;
    ms: number;
    request?: string;
    errorBody?: string;
  }[];
  pages?: { page: number; status: number; items: { id: string }[]; hasNext: boolean }[];
  result?: unknown;
  error?: { message: string; status: number; body?: string };
}

describe('weft invoke', () => {
  it('data: every page printed with its request (token redacted), status, timing and a table of its items', async () => {
    const r = await weft(app.url, 'data', 'book', '--account', 'account.json');
    expect(r.code, r.stderr).toBe(0);
    noSecret(r);
    expect(r.stdout).toMatch(/→ POST \/validate 200 in \d+ ms: account "Reader account"/);
    expect(r.stdout).toMatch(
      /→ POST \/api\/v1\/synchronizer\/data 200 in \d+ ms: book page 1: 2 items \(full\), more pages/,
    );
    expect(r.stdout).toMatch(/book page 3: 1 items \(full\)\n/);
    expect(r.stdout).toContain('"token":"[redacted]"');
    expect(r.stdout).toContain('"pagination":{"page":2}');
    expect(r.stdout).toMatch(/│ b3 +│ Ulysses +│ 1922/);
    expect(r.stdout).toContain('5 items in 3 pages');
    // What the host's reader says about the answers comes with them.
    expect(r.stdout).toContain('warning: descriptor.website: missing');
  }, 60_000);

  it('data --json is one parsable document; --pages stops, --since sends lastSynchronizedAt, date filters take phrases', async () => {
    const [all, two, since] = await Promise.all([
      weft(app.url, 'data', 'book', '--account', account, '--json', '--filter', 'published=last 3 years'),
      weft(app.url, 'data', 'book', '--account', account, '--json', '--pages', '2'),
      weft(app.url, 'data', 'book', '--account', account, '--json', '--since', '2026-11-01T10:00:00Z'),
    ]);
    for (const r of [all, two, since]) {
      expect(r.code, r.stderr).toBe(0);
      noSecret(r);
    }
    const report = JSON.parse(all.stdout) as Report;
    expect(report.pages?.map((p) => p.items.length)).toEqual([2, 2, 1]);
    expect(report.pages?.every((p) => p.status === 200)).toBe(true);
    const data = report.exchanges.filter((e) => e.path === '/api/v1/synchronizer/data');
    expect(data).toHaveLength(3);
    expect(data[0]?.request).toMatch(
      /"published":\{"_min":"\d{4}-01-01T00:00:00\.000","_max":"\d{4}-12-31T23:59:59\.999"\}/,
    );
    expect((JSON.parse(two.stdout) as Report).pages?.map((p) => p.page)).toEqual([1, 2]);
    const delta = JSON.parse(since.stdout) as Report;
    expect(delta.pages?.[0]?.items.map((i) => i.id)).toEqual(['b1']);
    expect(delta.exchanges.at(-1)?.request).toContain('"lastSynchronizedAt":"2026-11-01T10:00:00.000Z"');
  }, 60_000);

  it('an error the app answers exits 1 and is printed as the app sent it, the echoed token redacted', async () => {
    const gone = await serveShelf();
    await gone.close();
    const [human, json, badToken, noAnswer] = await Promise.all([
      weft(app.url, 'data', 'broken', '--account', account),
      weft(app.url, 'data', 'broken', '--account', account, '--json'),
      weft(app.url, 'validate', '--account', '{"token":"tok-wrong-value-9876"}'),
      weft(gone.url, 'config'),
    ]);
    expect(noAnswer.code).toBe(1);
    expect(noAnswer.stdout).toMatch(/→ GET \/ no answer in \d+ ms \(request failed/);
    expect(noAnswer.stderr).toContain('weft invoke: no answer from the app: GET /');
    expect(human.code).toBe(1);
    noSecret(human);
    expect(human.stdout).toMatch(/→ POST \/api\/v1\/synchronizer\/data 500 in \d+ ms/);
    expect(human.stdout).toContain(
      'answer: {"message":"Upstream refused token [redacted]","code":"upstream"}',
    );
    expect(human.stderr).toContain(
      'weft invoke: the app answered an error: POST /api/v1/synchronizer/data: Upstream refused token [redacted]',
    );
    expect(json.code).toBe(1);
    noSecret(json);
    const report = JSON.parse(json.stdout) as Report;
    expect(report.error).toMatchObject({
      status: 500,
      body: '{"message":"Upstream refused token [redacted]","code":"upstream"}',
    });
    expect(badToken.code).toBe(1);
    expect(badToken.stdout).toContain('answer: {"message":"Unknown token [redacted]"}');
    expect(`${badToken.stdout}${badToken.stderr}`).not.toContain('tok-wrong-value-9876');
  }, 60_000);

  it('validate, config, schema, datalist, action and webhook-transform, each against the app', async () => {
    const json = (r: Finished) => {
      expect(r.code, r.stderr).toBe(0);
      noSecret(r);
      return JSON.parse(r.stdout) as Report;
    };
    const runs = await Promise.all([
      weft(app.url, 'validate', '--account', 'account.json', '--json'),
      weft(app.url, 'config', '--account', 'account.json', '--json'),
      weft(app.url, 'schema', '--account', 'account.json', '--json'),
      weft(app.url, 'datalist', 'genre', '--account', 'account.json', '--json'),
      weft(app.url, 'action', 'notify', '--account', 'account.json', '--args', '{"text":"hello"}', '--json'),
      weft(app.url, 'webhook-transform', '--account', 'account.json', '--payload', 'event.json', '--json'),
    ]);
    const [validate, config, schema, datalist, action, transform] = runs.map(json);
    expect(validate?.result).toEqual({ name: 'Reader account' });
    expect(config?.result).toMatchObject({ types: [{ id: 'book' }, { id: 'broken' }] });
    expect(schema?.result).toMatchObject({ book: { year: { type: 'number' } } });
    // The schema is asked for the config's default types, as the host asks for a source's.
    expect(schema?.exchanges.at(-1)?.request).toContain('"types":["book"]');
    expect(datalist?.result).toEqual([
      { title: 'Fiction', value: 'fiction' },
      { title: 'Poetry', value: 'poetry' },
    ]);
    expect(action?.result).toEqual({ sent: 'hello' });
    expect(transform?.result).toEqual({ book: [{ id: 'b9', name: 'Nine' }] });
  }, 90_000);

  it('starts an app module, runs the operation against it and stops it', async () => {
    const r = await weft(fixture, 'datalist', 'genre', '--account', 'account.json');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/→ POST \/api\/v1\/synchronizer\/datalist 200 in \d+ ms: 2 options/);
    expect(r.stdout).toMatch(/│ fiction +│ Fiction/);
  }, 60_000);

  it('bad arguments exit 2 before anything is sent to the app', async () => {
    const before = app.requests.length;
    const cases: [string[], RegExp][] = [
      [[app.url, 'fetch'], /unknown operation 'fetch'/],
      [[app.url, 'data'], /data needs <type>/],
      [[app.url, 'data', 'book', '--since', 'next blursday'], /--since: /],
      [[app.url, 'data', 'book', '--filter', 'genre'], /--filter takes key=value, got 'genre'/],
      [[app.url, 'data', 'book', '--pages', '0'], /--pages must be a whole number, 1 or more/],
      [[app.url, 'data', 'book', '--account', '{"token":'], /--account: not valid JSON/],
      [[app.url, 'data', 'book', '--account', '[1]'], /--account must be a JSON object/],
      [[app.url, 'webhook-transform'], /webhook-transform needs --payload/],
      [[app.url, 'schema', '--args', '{}'], /--args is for action only/],
      [['missing/main.ts', 'schema'], /no such app module: missing\/main.ts/],
    ];
    // Every case through the command in-process, a few through the spawned CLI (each spawn loads
    // the whole CLI: all of them at once are slow on a loaded machine).
    for (const [args, message] of cases) {
      const io = capture(folder);
      expect(await run(['invoke', ...args], io), io.err()).toBe(2);
      expect(io.err()).toMatch(message);
      expect(io.out()).toBe('');
    }
    const spawned = await Promise.all([cases[0], cases[2], cases[9]].map((c) => weft(...(c?.[0] ?? []))));
    for (const r of spawned) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
    }
    expect(spawned[1]?.stderr).toMatch(/weft: --since: /);
    expect(app.requests.length).toBe(before);
  }, 120_000);
});
