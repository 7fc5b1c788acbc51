import { automationRunQueue } from './automations/automation-worker.js';
import { createSystemTables, systemTablesSql } from './db/bootstrap.js';
import type { Driver } from './db/driver.js';
import type { NewCluster } from './db/pglite-template.js';
import { hostTablesSql } from './host/host-ddl.js';
import { JobQueue, jobQueueTablesSql } from './jobs/job-queue.js';
import { BUILTIN_TYPES_VERSION, ensureBuiltinTypes } from './schema/builtins.js';

// What a new PGlite database of the workspace starts with, made once per machine on the cached
// template it is copied from (db/pglite-template.ts): the tables (workspace, automations, job
// queue, and the app host's, so a first `weft dev` makes none), the automation runs' queue (so the
// worker may start after the server), the app host's queues and the built-in types. A workspace's identity (schema id
// and token, its admin) is never in the template: every start adds what is missing, so each copy
// gets its own. The built-in types' ids are the template's, alike in every database made from it.

const IDENTITY_KEYS = `('schema_id', 'schema_version', 'schema_token')`;

export const NEW_PGLITE_DATABASE: NewCluster = {
  sql: systemTablesSql() + jobQueueTablesSql() + hostTablesSql(),
  prepareVersion: BUILTIN_TYPES_VERSION,
  async prepare(driver: Driver) {
    await createSystemTables(driver);
    await driver.transaction((tx) => ensureBuiltinTypes(tx));
    const jobs = await JobQueue.open(driver);
    try {
      await jobs.define(automationRunQueue());
      // Each queue is a table of pg-boss' job partitions with nine indexes and constraints: made
      // at a first `weft dev`, the host's seven were most of its start's statements. Made with
      // the settings a host with the default options gives them, so its start writes none
      // (JobQueue.define). Loaded here only, so a start that finds its template made never loads
      // the host for it.
      const { hostQueueSpecs } = await import('./host/app-host.js');
      for (const spec of hostQueueSpecs()) await jobs.define(spec);
    } finally {
      await jobs.stop();
    }
    await driver.query(`DELETE FROM svc_meta WHERE key IN ${IDENTITY_KEYS}`);
  },
};
