// `weft dev` restarting the app when its file changes: a temporary app module is started by the
// command and synced; the test then rewrites the module (a new title and a new field) and polls the
// workspace over HTTP until the restarted app's new rows and field are there. No timing asserts:
// only a generous deadline.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { entryArgs } from '../../../scripts/test-support/checkout-node.js';
import { cleanEnv } from './support/processes.js';
import { devFolders } from './support/weft-dev.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const { appFolder, userFolder: dataFolder } = devFolders('dev-restart');

function appModule(version: 1 | 2): string {
  const extraField = version === 2 ? `size: field.integer({ name: 'Size' }),` : '';
  const extraValue = version === 2 ? `size: 42,` : '';
  return `import { auth, defineApp, field, startServer } from '@weft/core';

const app = defineApp({
  id: 'morph',
  name: 'Morph',
  version: '${version}.0.0',
  description: 'an app that the test rewrites',
  website: 'http://127.0.0.1/',
  authentication: [auth.none({ name: 'None' })],
  sync: {
    types: {
      item: {
        name: 'Items',
        fields: { id: field.id(), name: field.title({ name: 'Name' }), ${extraField} },
        async *data() {
          yield { id: 'i1', name: 'version ${version}', ${extraValue} };
        },
      },
    },
  },
});

await startServer(app, { defaultPort: 3999, shutdownGraceMs: 500 });
`;
}

describe('weft dev on an app module', () => {
  it('restarts the app when its file changes and syncs what the new code sends', async () => {
    const file = join(appFolder, 'app.ts');
    writeFileSync(file, appModule(1));
    const child = spawn(process.execPath, [...entryArgs('cli', 'main'), 'dev', file], {
      cwd: join(root, 'packages/cli'),
      env: cleanEnv({
        PORT: '0',
        WEFT_ADMIN_TOKEN: 'dev-restart-token-1',
        WEFT_RATE_LIMIT: '0',
        INIT_CWD: dataFolder,
      }),
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      const until = Date.now() + 90_000;
      while (!out.includes('Ready.') && Date.now() < until && child.exitCode === null)
        await new Promise((r) => setTimeout(r, 100));
      expect(out, err).toContain('Ready.');
      const url = /Workspace listening on (\S+)/.exec(out)?.[1] as string;

      const items = async (select: string[]) => {
        const response = await fetch(`${url}/api/commands`, {
          method: 'POST',
          headers: { authorization: 'Token dev-restart-token-1', 'content-type': 'application/json' },
          body: JSON.stringify([
            { command: 'svc.entity/query', args: { query: { 'q/from': 'morph/item', 'q/select': select } } },
          ]),
        });
        const [result] = (await response.json()) as { success: boolean; result: Record<string, unknown>[] }[];
        // Before the restarted app's first sync the new field does not exist: the query fails.
        return result?.success ? result.result : [];
      };
      expect((await items(['morph/name'])).map((i) => i['morph/name'])).toEqual(['version 1']);

      writeFileSync(file, appModule(2));
      const deadline = Date.now() + 60_000;
      const select = ['morph/name', 'morph/size'];
      let now = await items(select);
      while (now[0]?.['morph/name'] !== 'version 2' && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 250));
        now = await items(select);
      }
      expect(now, `${out}\n${err}`).toMatchObject([{ 'morph/name': 'version 2', 'morph/size': 42 }]);
      expect(out).toContain('App files changed: restarting the app');
      // The source still points at the app, and the host API lists the new run.
      const sources = await fetch(`${url}/api/host/sources`, {
        headers: { authorization: 'Token dev-restart-token-1' },
      }).then((r) => r.json() as Promise<{ id: string; url: string }[]>);
      expect(sources).toHaveLength(1);
      const listRuns = () =>
        fetch(`${url}/api/host/sources/${sources[0]?.id}/runs`, {
          headers: { authorization: 'Token dev-restart-token-1' },
        }).then((r) => r.json() as Promise<{ status: string }[]>);
      const succeeded = (list: { status: string }[]) =>
        Array.isArray(list) ? list.filter((r) => r.status === 'succeeded').length : 0;
      // A run's rows are visible page by page, before its finish job records it as succeeded: on a
      // loaded machine the second run can still be `running` when its rows are already read.
      let runs = await listRuns();
      while (succeeded(runs) < 2 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 250));
        runs = await listRuns();
      }
      expect(Array.isArray(runs), JSON.stringify([sources, runs])).toBe(true);
      expect(succeeded(runs), JSON.stringify(runs)).toBeGreaterThanOrEqual(2);
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
  }, 180_000);
});
