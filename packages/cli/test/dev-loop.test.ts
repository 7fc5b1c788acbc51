// The dev loop's safety as a user meets it, with real processes and real signals:
// - a `weft dev` killed (SIGKILL, its whole process group) in the middle of a sync does not block
//   the next start on the same folder: the next start syncs, and the killed run shows as failed;
// - a second `weft dev` on a data folder in use is refused with a message naming the first;
// - arguments the first start needs (`--account`) are checked before the workspace listens, and a
//   first start that lacks them leaves the folder as it found it;
// - the Ready line names the page and how to sign in; `--new-token` replaces the admin token.
// No timing asserts: only generous deadlines.
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnWeftDev, type WeftDev } from './support/weft-dev.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
// App modules live inside packages/cli so that they resolve @weft/core like an app of this repository.
const appFolder = mkdtempSync(join(root, 'packages/cli/test/.dev-loop-'));
const scratch = mkdtempSync(join(tmpdir(), 'weft-dev-loop-'));
const started: ChildProcess[] = [];
afterAll(() => {
  for (const child of started) {
    // Each `weft dev` leads its process group (its app included).
    if (child.exitCode === null && child.signalCode === null && child.pid) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
  }
  rmSync(appFolder, { recursive: true, force: true });
  // Several PGlite folders: slow to remove on a loaded machine.
  rmSync(scratch, { recursive: true, force: true });
}, 120_000);

/**
 * An app whose second data page, the first time it is asked for, never answers (it leaves `marker`
 * behind); later asks answer at once. The second page, not the first: the first is asked for by
 * the run's start job while it sets the run up, so a kill then could land before the page job is
 * taken, and the next start would take that job over and finish the run. The second page is only
 * ever asked for by a page job that is running, so the kill leaves a run whose job is in a dead
 * process: the case this file tests.
 */
function slowApp(marker: string): string {
  return `import { existsSync, writeFileSync } from 'node:fs';
import { auth, defineApp, field, resume, startServer } from '@weft/core';

const app = defineApp({
  id: 'halt',
  name: 'Halt',
  version: '1.0.0',
  description: 'its second data page never answers the first time',
  website: 'http://127.0.0.1/',
  authentication: [auth.none({ name: 'None' })],
  sync: {
    types: {
      item: {
        name: 'Items',
        pageSize: 1,
        fields: { id: field.id(), name: field.title({ name: 'Name' }) },
        async *data({ cursor }) {
          if (cursor === undefined) {
            yield { id: 'a', name: 'A' };
            yield resume(1);
          }
          if (!existsSync(${JSON.stringify(marker)})) {
            writeFileSync(${JSON.stringify(marker)}, 'asked');
            await new Promise(() => {});
          }
          yield { id: 'b', name: 'B' };
        },
      },
    },
  },
});

await startServer(app, { defaultPort: 3999, shutdownGraceMs: 500 });
`;
}

const TOKEN_APP = `import { auth, defineApp, field, input, startServer } from '@weft/core';

const app = defineApp({
  id: 'keyed',
  name: 'Keyed',
  version: '1.0.0',
  description: 'needs a token',
  website: 'http://127.0.0.1/',
  authentication: [
    auth.fields({ id: 'token', name: 'Token', fields: { token: input.password({ name: 'Token' }) } }),
  ],
  sync: {
    types: {
      item: {
        name: 'Items',
        fields: { id: field.id(), name: field.title({ name: 'Name' }) },
        async *data() {
          yield { id: 'a', name: 'A' };
        },
      },
    },
  },
});

await startServer(app, { defaultPort: 3999, shutdownGraceMs: 500 });
`;

/** An app that sends nothing in a delta; version 2 adds a field, version 3 a type. */
function growingApp(version: 1 | 2 | 3): string {
  const size = version >= 2 ? `size: field.integer({ name: 'Size' }),` : '';
  const sizeValue = version >= 2 ? 'size: 7,' : '';
  const tag =
    version === 3
      ? `tag: { name: 'Tags', fields: { id: field.id(), name: field.title({ name: 'Name' }) }, async *data() { yield { id: 't', name: 'T' }; } },`
      : '';
  return `import { auth, defineApp, field, startServer } from '@weft/core';

const app = defineApp({
  id: 'grow',
  name: 'Grow',
  version: '${version}.0.0',
  description: 'its schema grows',
  website: 'http://127.0.0.1/',
  authentication: [auth.none({ name: 'None' })],
  sync: {
    types: {
      item: {
        name: 'Items',
        delta: true,
        fields: { id: field.id(), name: field.title({ name: 'Name' }), ${size} },
        async *data({ mode }) {
          if (mode === 'delta') return;
          yield { id: 'a', name: 'A', ${sizeValue} };
          yield { id: 'b', name: 'B', ${sizeValue} };
        },
      },
      ${tag}
    },
  },
});

await startServer(app, { defaultPort: 3999, shutdownGraceMs: 500 });
`;
}

type Dev = WeftDev;

function weftDev(args: string[], folder: string, env: Record<string, string> = {}): Dev {
  const dev = spawnWeftDev(args, folder, { env, detached: true });
  started.push(dev.child);
  return dev;
}

async function until(what: () => boolean, ms = 120_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!what() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
}

async function ready(dev: Dev): Promise<string> {
  await until(() => dev.out().includes('Ready.') || dev.child.exitCode !== null);
  expect(dev.out(), dev.err()).toContain('Ready.');
  return /Workspace listening on (\S+)/.exec(dev.out())?.[1] as string;
}

const api = (url: string, token: string, path: string) =>
  fetch(`${url}${path}`, { headers: { authorization: `Token ${token}` } });

describe('weft dev in the dev loop', () => {
  it('starts again after a SIGKILL in the middle of a sync: it syncs, and the killed run shows as failed', async () => {
    const marker = join(scratch, 'asked');
    const file = join(appFolder, 'halt.ts');
    writeFileSync(file, slowApp(marker));
    const folder = mkdtempSync(join(scratch, 'killed-'));
    const env = { WEFT_ADMIN_TOKEN: 'dev-loop-token-1' };

    const first = weftDev([file], folder, env);
    await until(() => existsSync(marker) || first.child.exitCode !== null);
    expect(existsSync(marker), first.out() + first.err()).toBe(true);
    process.kill(-(first.child.pid as number), 'SIGKILL');
    await first.exited;
    // The killed process' lock stays behind: the next start takes it over.
    expect(existsSync(join(folder, '.weft', 'weft.lock'))).toBe(true);

    const second = weftDev([file], folder, env);
    const url = await ready(second);
    expect(second.out()).toMatch(/Synced 2 rows/);
    const [source] = (await (await api(url, env.WEFT_ADMIN_TOKEN, '/api/host/sources')).json()) as {
      id: string;
    }[];
    const runs = (await (
      await api(url, env.WEFT_ADMIN_TOKEN, `/api/host/sources/${source?.id}/runs`)
    ).json()) as {
      status: string;
      error: string | null;
    }[];
    expect(runs.map((r) => r.status)).toEqual(['succeeded', 'failed']);
    expect(runs[1]?.error).toBe('The process running this sync stopped before it ended');
    // The Ready line names the page and how to sign in.
    expect(second.out()).toContain(`Ready. The page: ${url}/ui (sign in with the token in WEFT_ADMIN_TOKEN)`);
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(0);
    expect(existsSync(join(folder, '.weft', 'weft.lock'))).toBe(false);
  }, 300_000);

  it('starts again after a Ctrl-C in the middle of a sync, never blocked by the run it left', async () => {
    const marker = join(scratch, 'asked-sigint');
    const file = join(appFolder, 'halt-sigint.ts');
    writeFileSync(file, slowApp(marker));
    const folder = mkdtempSync(join(scratch, 'interrupted-'));
    const env = { WEFT_ADMIN_TOKEN: 'dev-loop-token-3' };

    const first = weftDev([file], folder, env);
    await until(() => existsSync(marker) || first.child.exitCode !== null);
    expect(existsSync(marker), first.out() + first.err()).toBe(true);
    // Ctrl-C in a terminal: SIGINT to the whole process group.
    process.kill(-(first.child.pid as number), 'SIGINT');
    await first.exited;

    const second = weftDev([file], folder, env);
    const url = await ready(second);
    expect(second.out()).toMatch(/Synced 2 rows/);
    const [source] = (await (await api(url, env.WEFT_ADMIN_TOKEN, '/api/host/sources')).json()) as {
      id: string;
    }[];
    const runs = (await (
      await api(url, env.WEFT_ADMIN_TOKEN, `/api/host/sources/${source?.id}/runs`)
    ).json()) as {
      status: string;
    }[];
    // The interrupted run was taken over and finished, or failed as stopped: never left running.
    expect(runs).toHaveLength(2);
    expect(runs.map((r) => r.status)).not.toContain('running');
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(0);
  }, 300_000);

  it('refuses a second weft dev on a folder in use, naming the first; --new-token replaces the admin token', async () => {
    const file = join(appFolder, 'plain.ts');
    writeFileSync(file, TOKEN_APP);
    const folder = mkdtempSync(join(scratch, 'shared-'));
    const account = ['--account', '{"token":"t-1"}'];

    const first = weftDev([file, ...account], folder);
    const url = await ready(first);
    const token = /Admin token: (\S+)/.exec(first.out())?.[1] as string;
    expect(token).toBeDefined();
    expect(first.out()).toContain(`Ready. The page: ${url}/ui (sign in with the admin token printed above)`);

    const second = weftDev([file], folder);
    expect(await second.exited).toBe(1);
    const message = second.err();
    expect(message).toContain(`is in use by process ${first.child.pid} (weft dev ${file}), running since 20`);
    expect(second.out()).not.toContain('Workspace listening');
    // The lock names no secret: never the account.
    expect(readFileSync(join(folder, '.weft', 'weft.lock'), 'utf8')).not.toContain('t-1');

    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);

    const renewed = weftDev([file, '--new-token'], folder);
    const url2 = await ready(renewed);
    const fresh = /Admin token: (\S+)/.exec(renewed.out())?.[1] as string;
    expect(fresh).toBeDefined();
    expect(fresh).not.toBe(token);
    expect((await api(url2, fresh, '/api/host/sources')).status).toBe(200);
    expect((await api(url2, token, '/api/host/sources')).status).toBe(401);
    renewed.child.kill('SIGINT');
    expect(await renewed.exited).toBe(0);
  }, 300_000);

  it('syncs fully after a schema change, names types it does not sync, and --full forces a full sync', async () => {
    const folder = mkdtempSync(join(appFolder, 'grow-'));
    const file = join(folder, 'grow.ts');
    writeFileSync(file, growingApp(1));
    const data = mkdtempSync(join(scratch, 'grow-'));
    const env = { WEFT_ADMIN_TOKEN: 'dev-loop-token-2' };

    const first = weftDev([file], data, env);
    const url = await ready(first);
    expect(first.out()).toMatch(/Synced 2 rows .* · full\n/);
    writeFileSync(file, growingApp(2));
    await until(() => first.out().includes('Synced again'));
    expect(first.out(), first.err()).toContain(
      "Synced again: 2 rows (0 removed) · full: the app's schema changed",
    );
    const response = await fetch(`${url}/api/commands`, {
      method: 'POST',
      headers: { authorization: `Token ${env.WEFT_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify([
        {
          command: 'svc.entity/query',
          args: { query: { 'q/from': 'grow/item', 'q/select': ['grow/size'] } },
        },
      ]),
    });
    const [result] = (await response.json()) as { result: Record<string, unknown>[] }[];
    expect(result?.result).toEqual([{ 'grow/size': 7 }, { 'grow/size': 7 }]);

    writeFileSync(file, growingApp(3));
    await until(() => first.out().includes('does not sync'));
    expect(first.out()).toContain(
      'The app offers types this source does not sync: tag (Tags). Add them with --types item,tag',
    );
    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);

    const again = weftDev([file, '--full'], data, env);
    await ready(again);
    expect(again.out()).toContain('Synced 2 rows (0 removed) in 1 page,');
    expect(again.out()).toMatch(/ · full: asked for\n/);
    again.child.kill('SIGINT');
    expect(await again.exited).toBe(0);
  }, 300_000);

  it('asks for --account before the workspace listens, naming the flag with an example, and leaves no database', async () => {
    const file = join(appFolder, 'keyed.ts');
    writeFileSync(file, TOKEN_APP);
    const folder = mkdtempSync(join(scratch, 'keyed-'));
    const dev = weftDev([file], folder);
    expect(await dev.exited).toBe(2);
    expect(dev.err()).toContain(
      `--account is needed: the app's authentication "token" asks for token. For example: weft dev ${file} --account '{"token":"..."}'`,
    );
    expect(dev.out()).not.toContain('Workspace listening');
    expect(existsSync(join(folder, '.weft', 'PG_VERSION'))).toBe(false);
  }, 120_000);
});
