import { afterAll, beforeAll, describe } from 'vitest';
import { copyContract } from '../../test/support/copy-contract.js';
import type { Driver } from './driver.js';
import { openPgliteDriver } from './pglite-driver.js';

// The PGlite driver's COPY (FROM '/dev/blob'), which bulk creates of 50 rows or more go through:
// the same contract as the Postgres driver's.

describe('the PGlite driver', () => {
  let driver: Driver;

  beforeAll(async () => {
    driver = await openPgliteDriver();
    await driver.exec('CREATE TABLE t (id int PRIMARY KEY, note text, ref int REFERENCES t(id))');
  });
  afterAll(async () => {
    await driver.close();
  });

  copyContract(() => driver);
});
