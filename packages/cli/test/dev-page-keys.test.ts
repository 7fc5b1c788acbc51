// The page cursors of an app that `weft dev` runs outlive the app's restarts: a cursor the app
// answered before a restart after a file change, and before a restart of `weft dev` itself on the
// same data folder, is taken by the new process (each would sign with a key of its own otherwise,
// and refuse the other's cursors with a 400). The app no longer warns that WEFT_PAGE_KEYS is unset.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { APP_PAGE_KEY_FILE } from '../src/commands/dev-page-key.js';
import { freePort } from '../src/commands/free-port.js';
import { devFolders, spawnWeftDev, type WeftDev } from './support/weft-dev.js';

const { appFolder, userFolder } = devFolders('dev-page-keys');

const appModule = (note: string) => `// ${note}
import { auth, defineApp, field, startServer } from '@weft/core';

const app = defineApp({
  id: 'paged',
  name: 'Paged',
  version: '1.0.0',
  description: 'three rows, one a page',
  website: 'http://127.0.0.1/',
  authentication: [auth.none({ name: 'None' })],
  sync: {
    types: {
      item: {
        name: 'Items',
        pageSize: 1,
        fields: { id: field.id(), name: field.title({ name: 'Name' }) },
        async *data() {
          yield* [1, 2, 3].map((n) => ({ id: \`i\${n}\`, name: \`row \${n}\` }));
        },
      },
    },
  },
});

await startServer(app, { defaultPort: 3998, shutdownGraceMs: 500 });
`;

/** `weft dev` on the module, without a first sync; `until` waits for a line after `from`. */
function startDev(file: string, appPort: number) {
  const dev = spawnWeftDev([file, '--no-sync'], userFolder, {
    env: { WEFT_APP_PORT: String(appPort), WEFT_ADMIN_TOKEN: 'dev-page-keys-token' },
  });
  const until = async (text: string, from = 0) => {
    const deadline = Date.now() + 90_000;
    while (!dev.out().slice(from).includes(text) && Date.now() < deadline && dev.child.exitCode === null)
      await new Promise((r) => setTimeout(r, 100));
    expect(dev.out().slice(from), dev.err()).toContain(text);
  };
  return { ...dev, until };
}

async function stop(dev: WeftDev) {
  dev.child.kill('SIGINT');
  expect(await dev.exited).toBe(0);
}

describe('weft dev and the page cursors of its app', () => {
  it('a cursor answered before a restart is taken after it: of the app, and of weft dev', async () => {
    const file = join(appFolder, 'app.ts');
    writeFileSync(file, appModule('first'));
    const appPort = await freePort();
    const page = async (pagination?: unknown) => {
      const response = await fetch(`http://127.0.0.1:${appPort}/api/v1/synchronizer/data`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          requestedType: 'item',
          types: ['item'],
          filter: {},
          account: {},
          lastSynchronizedAt: null,
          ...(pagination === undefined ? {} : { pagination }),
        }),
      });
      const body = (await response.json()) as {
        items?: { id: string }[];
        pagination?: { hasNext: boolean; nextPageConfig?: unknown };
        message?: string;
      };
      return { status: response.status, body };
    };

    const dev = await startDev(file, appPort);
    let next: unknown;
    try {
      await dev.until('Ready.');
      const first = await page();
      expect(first.body.items?.map((i) => i.id)).toEqual(['i1']);
      next = first.body.pagination?.nextPageConfig;
      expect(next).toBeDefined();

      const mark = dev.out().length;
      writeFileSync(file, appModule('second'));
      await dev.until('App restarted on', mark);
      const second = await page(next);
      expect(second, JSON.stringify(second.body)).toMatchObject({ status: 200 });
      expect(second.body.items?.map((i) => i.id)).toEqual(['i2']);
      expect(dev.err()).not.toContain('WEFT_PAGE_KEYS');
    } finally {
      await stop(dev);
    }

    // The key lives in the data folder, readable by its owner only.
    const keyFile = join(userFolder, '.weft', APP_PAGE_KEY_FILE);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(keyFile, 'utf8').trim()).toMatch(/^[\w-]{43}$/);

    const again = await startDev(file, appPort);
    try {
      await again.until('Ready.');
      const second = await page(next);
      expect(second, JSON.stringify(second.body)).toMatchObject({ status: 200 });
      expect(second.body.items?.map((i) => i.id)).toEqual(['i2']);
    } finally {
      await stop(again);
    }
  }, 240_000);
});
