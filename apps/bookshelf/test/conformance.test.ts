// The whole conformance kit against the bookshelf app, as the service would call it.
import { formatReport, runConformance } from '@weft/conformance';
import { type TestApp, testApp } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bookshelfApp } from '../src/app.js';
import { REFERENCE_DATE } from '../src/dataset.js';

let app: TestApp;
beforeAll(async () => {
  app = await testApp(bookshelfApp);
});
afterAll(async () => {
  await app.close();
});

describe('bookshelf: conformance kit', () => {
  it('passes every check, with and without filters', async () => {
    // `now` at the dataset's reference date, so the kit's delta sync finds recent changes.
    for (const filter of [{}, { genre: 'poetry', published: 'from 01-01-1990' }]) {
      const report = await runConformance(app.url, { strict: true, filter, now: REFERENCE_DATE });
      const failed = report.checks.filter((c) => c.status === 'fail');
      expect(failed, formatReport(report)).toEqual([]);
      expect(report.ok).toBe(true);
      expect(report.sync.book?.count).toBeGreaterThan(0);
      expect(report.sync.book?.relationCoverage.author).toMatchObject({
        total: report.sync.book?.relationCoverage.author?.resolved,
      });
    }
  }, 120_000);
});
