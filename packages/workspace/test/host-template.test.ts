// A first `weft dev` in a new data folder: the app host's start finds its tables and job queues in
// the template the folder was copied from (new-database.ts), so it makes no table or index of its
// own, and its queues' settings are stored as it wants them, so it writes none of them either.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AppHost, HOST_QUEUES } from '../src/host/app-host.js';
import { SecretBox } from '../src/host/secret-box.js';
import { openWorkspace } from '../src/workspace.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('the app host in a new PGlite data folder', () => {
  it('finds its queues made as it wants them and creates no relation at its start', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weft-host-template-'));
    dirs.push(dir);
    const ws = await openWorkspace({
      database: { kind: 'pglite', dataDir: join(dir, 'data') },
      webhooks: false,
      log: () => {},
    });
    try {
      const queues = await ws.driver.query<{ name: string }>('SELECT name FROM pgboss.queue');
      expect(queues.rows.map((r) => r.name)).toEqual(expect.arrayContaining(HOST_QUEUES));
      const relations = async () =>
        Number((await ws.driver.query<{ n: string }>('SELECT count(*) AS n FROM pg_class')).rows[0]?.n);
      const before = await relations();
      const written = async () =>
        (
          await ws.driver.query<{ name: string; updated_on: Date }>(
            'SELECT name, updated_on FROM pgboss.queue ORDER BY name',
          )
        ).rows;
      const queuesBefore = await written();
      const host = await AppHost.open(ws, {
        box: new SecretBox('0'.repeat(64)),
        publicUrl: () => 'http://127.0.0.1:1',
        scheduleEveryMs: 0,
      });
      await host.close();
      expect(await relations()).toBe(before);
      expect(await written()).toEqual(queuesBefore);
    } finally {
      await ws.close();
    }
  });
});
