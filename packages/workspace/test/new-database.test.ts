// A new PGlite database starts with the app host's tables already made (they are in the template it
// is copied from), so a first `weft dev` runs no table statements of its own; they are the very
// tables and columns the host makes on an older database.
import { afterAll, expect, it } from 'vitest';
import { createHostTables } from '../src/host/host-tables.js';
import { createLeaseColumns } from '../src/host/run-lease.js';
import { createFingerprintColumns } from '../src/host/schema-fingerprint.js';
import { createVerifySchedule } from '../src/host/verify-schedule.js';
import { openWorkspace, type Workspace } from '../src/workspace.js';

const opened: Workspace[] = [];
afterAll(async () => {
  for (const ws of opened) await ws.close();
});

const HOST_COLUMNS = `SELECT table_name, column_name FROM information_schema.columns
  WHERE table_schema = current_schema() AND table_name LIKE 'weft_host_%' ORDER BY 1, 2`;

it('a new PGlite database holds the app host tables, as the host itself makes them', async () => {
  const fresh = await openWorkspace({ database: { kind: 'memory' }, webhooks: false });
  opened.push(fresh);
  const inTemplate = (await fresh.driver.query(HOST_COLUMNS)).rows;
  expect(inTemplate).toContainEqual({ table_name: 'weft_host_runs', column_name: 'lease_until' });
  expect(inTemplate).toContainEqual({ table_name: 'weft_host_sources', column_name: 'verify_every_seconds' });
  // The same tables as the host's own statements make, and nothing for them left to do.
  for (const make of [createHostTables, createLeaseColumns, createFingerprintColumns, createVerifySchedule])
    await make(fresh.driver);
  expect((await fresh.driver.query(HOST_COLUMNS)).rows).toEqual(inTemplate);
}, 120_000);
