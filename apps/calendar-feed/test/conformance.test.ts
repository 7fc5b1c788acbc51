// The whole conformance kit against the calendar-feed app, as the service would call it.
import { formatReport, runConformance } from '@weft/conformance';
import { type TestApp, testApp } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCalendarFeedApp } from '../src/app.js';

const NOW = new Date('2026-06-01T12:00:00Z');

let app: TestApp;
beforeAll(async () => {
  app = await testApp(createCalendarFeedApp({ now: () => NOW }));
});
afterAll(async () => {
  await app.close();
});

describe('calendar-feed: conformance kit', () => {
  it('passes every check, with and without filters', async () => {
    // The date filter is typed as a user would, in the date-range grammar.
    for (const filter of [{}, { calendar: 'community', category: ['Meetup'], when: 'from 01-11-2026' }]) {
      const report = await runConformance(app.url, { strict: true, filter, now: NOW });
      const failed = report.checks.filter((c) => c.status === 'fail');
      expect(failed, formatReport(report)).toEqual([]);
      expect(report.ok).toBe(true);
      expect(report.sync.event?.count).toBeGreaterThan(0);
      expect(report.sync.event?.relationCoverage.calendar).toMatchObject({
        total: report.sync.event?.relationCoverage.calendar?.resolved,
      });
    }
  }, 120_000);
});
