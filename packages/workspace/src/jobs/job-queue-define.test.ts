// Defining a queue writes it only when it is missing or stored with other settings: a start that
// defines the queues it uses (the app host: seven) runs pg-boss' create_queue for none of them once
// they exist. Its settings still apply when they change, and a start writes its own over others.
import { afterAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../../test/support/databases.js';
import type { Driver } from '../db/driver.js';
import { openDriver } from '../db/open-driver.js';
import { JobQueue } from './job-queue.js';

const dropped: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const drop of dropped) await drop();
});

/** The queue's row as stored: its settings and when pg-boss last wrote them. */
async function stored(driver: Driver, schema: string, name: string) {
  const { rows } = await driver.query<{ retry_limit: number; expire_seconds: number; updated_on: Date }>(
    `SELECT retry_limit, expire_seconds, updated_on FROM ${schema}.queue WHERE name = $1`,
    [name],
  );
  return rows[0];
}

for (const target of databaseTargets()) {
  describe(`JobQueue.define [${target.name}]`, () => {
    it('writes a queue that is missing or differs, and leaves one stored as wanted alone', async () => {
      const { database, drop } = await target.create();
      dropped.push(drop);
      const driver = await openDriver(database, {});
      const queues: JobQueue[] = [];
      try {
        const open = async () => {
          const queue = await JobQueue.open(driver, {});
          queues.push(queue);
          return queue;
        };
        const spec = { name: 'define-test', expireSeconds: 60, retryLimit: 2 };
        const first = await open();
        expect(await first.define(spec)).toBe(60);
        const made = await stored(driver, first.schema, 'define-test');
        expect(made).toMatchObject({ retry_limit: 2, expire_seconds: 60 });

        // A later start with the same settings: nothing written.
        const second = await open();
        expect(await second.define(spec)).toBe(60);
        expect((await stored(driver, second.schema, 'define-test'))?.updated_on).toEqual(made?.updated_on);

        // Changed settings are written, and then kept in this process' view.
        expect(await second.define({ ...spec, retryLimit: 5 })).toBe(60);
        const changed = await stored(driver, second.schema, 'define-test');
        expect(changed?.retry_limit).toBe(5);
        expect(changed?.updated_on).not.toEqual(made?.updated_on);

        // A start with the first settings again (another version of the workspace on this
        // database): it reads what is stored now, and writes its own.
        const third = await open();
        await third.define(spec);
        expect((await stored(driver, third.schema, 'define-test'))?.retry_limit).toBe(2);
      } finally {
        for (const queue of queues) await queue.stop();
        await driver.close();
      }
    }, 60_000);
  });
}
