import { automationRunQueue } from './automations/automation-worker.js';
import { createSystemTables, systemTablesSql } from './db/bootstrap.js';
import type { Driver } from './db/driver.js';
import type { NewCluster } from './db/pglite-template.js';
import { hostTablesSql } from './host/host-ddl.js';
import { JobQueue, jobQueueTablesSql } from './jobs/job-queue.js';
import { ensureBuiltinTypes } from './schema/builtins.js';

// What a new PGlite database of the workspace starts with, made once per machine on the cached
// template it is copied from (db/pglite-template.ts): the tables (workspace, automations, job
// queue, and the app host's, so a first `weft dev` makes none), the automation runs' queue (so the
// worker may start after the server) and the built-in types. A workspace's identity (schema id
// and token, its admin) is never in the template: every start adds what is missing, so each copy
// gets its own. The built-in types' ids are the template's, alike in every database made from it.

const IDENTITY_KEYS = `('schema_id', 'schema_version', 'schema_token')`;

export const NEW_PGLITE_DATABASE: NewCluster = {
  sql: systemTablesSql() + jobQueueTablesSql() + hostTablesSql(),
  async prepare(driver: Driver) {
    await createSystemTables(driver);
    await driver.transaction((tx) => ensureBuiltinTypes(tx));
    const jobs = await JobQueue.open(driver);
    try {
      await jobs.define(automationRunQueue());
    } finally {
      await jobs.stop();
    }
    await driver.query(`DELETE FROM svc_meta WHERE key IN ${IDENTITY_KEYS}`);
  },
};
