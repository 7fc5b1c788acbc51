// An automation run is a job in the workspace's database: pressed while no process runs
// automations, it waits in the queue, and a workspace opened later on the same database runs it.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { typeArgs } from '../../test/support/databases.js';
import { AUTOMATION_RUN, createAutomation, listRuns, queueButtonRun } from '../automations/store.js';
import type { DatabaseOption } from '../db/open-driver.js';
import { openWorkspace, type Workspace } from '../workspace.js';

const PG_URL = process.env.WEFT_TEST_DATABASE_URL;
if (!PG_URL)
  console.log(
    'automation restart test: the Postgres run is skipped because WEFT_TEST_DATABASE_URL is not set',
  );

const dirs: string[] = [];
const schemas: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
  if (PG_URL && schemas.length > 0) {
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    for (const s of schemas) await c.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
    await c.end();
  }
});

const targets: Array<[string, () => Promise<DatabaseOption>]> = [
  [
    'pglite',
    async () => {
      const dataDir = await mkdtemp(join(tmpdir(), 'weft-restart-'));
      dirs.push(dataDir);
      return { kind: 'pglite', dataDir };
    },
  ],
  ...(PG_URL
    ? ([
        [
          'postgres',
          async () => {
            const schema = `weft_restart_${randomBytes(5).toString('hex')}`;
            schemas.push(schema);
            return { kind: 'postgres', url: PG_URL, schema };
          },
        ],
      ] as Array<[string, () => Promise<DatabaseOption>]>)
    : []),
];

const open = (database: DatabaseOption) =>
  openWorkspace({ database, webhooks: false, jobs: { pollSeconds: 0.5 }, log: () => {} });

for (const [name, database] of targets) {
  describe(`automation runs across a restart [${name}]`, () => {
    it('a button pressed while no worker runs is run by the next workspace on the database', async () => {
      const db = await database();
      let first: Workspace | undefined = await open(db);
      let second: Workspace | undefined;
      try {
        const [type, created] = await first.execute([
          { command: 'schema.type/create', args: typeArgs('shop/item') },
          { command: 'svc.entity/create', args: { type: 'shop/item', entity: { 'shop/name': 'Lamp' } } },
        ]);
        expect(type?.success).toBe(true);
        const entityId = (created as { result: { 'svc/id': string } }).result['svc/id'];
        const button = await createAutomation(first.driver, {
          name: 'Count',
          trigger: 'button',
          type: 'shop/item',
          action: { kind: 'script', code: 'return args.currentEntities.length' },
        });
        // This process stops running automations; the press is only queued.
        await first.jobs.unwork(AUTOMATION_RUN);
        const runId = await queueButtonRun(first.driver, button.id, [entityId], first.adminUserId);
        expect((await listRuns(first.driver, button.id)).map((r) => [r.id, r.state])).toEqual([
          [runId, 'queued'],
        ]);
        await first.close();
        first = undefined;

        second = await open(db);
        const until = Date.now() + 30_000;
        let runs = await listRuns(second.driver, button.id);
        while (runs[0]?.state !== 'done' && Date.now() < until) {
          await new Promise((r) => setTimeout(r, 100));
          runs = await listRuns(second.driver, button.id);
        }
        expect(runs).toMatchObject([{ id: runId, state: 'done', answer: 1, attempts: 1 }]);
      } finally {
        await first?.close();
        await second?.close();
      }
    }, 60_000);
  });
}
