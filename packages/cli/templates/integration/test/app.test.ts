// The app against recorded tracker answers (cassettes/app.json): offline, every page covered.
// `npm run record` re-records them against the demo tracker (or TRACKER_URL).
import { expectConformant } from '@weft/conformance/vitest';
import { upstreamMode } from '@weft/core';
import { type TestApp, testApp, useCassette } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { app } from '../src/app.js';
import { DEMO_NOW, DEMO_TOKEN } from '../src/tracker-data.js';
import { type RunningTracker, startTracker } from '../src/tracker-server.js';

useCassette(new URL('../cassettes/app.json', import.meta.url));
const account = { token: DEMO_TOKEN };

let running: TestApp;
let demoTracker: RunningTracker | undefined;
beforeAll(async () => {
  // Recording needs a live tracker: start the demo one where the app expects it.
  if (upstreamMode() === 'record' && !process.env.TRACKER_URL) demoTracker = await startTracker(4010);
  running = await testApp(app);
});
afterAll(async () => {
  await running.close();
  await demoTracker?.close();
});

describe('tasks app', () => {
  it('syncs every task across the tracker pages', async () => {
    const { items, pages } = await running.sync('task', { account });
    expect(items).toHaveLength(24);
    expect(pages).toBeGreaterThanOrEqual(1);
    expect(items[0]).toMatchObject({ id: 't-01', project: 'p-1' });
  });

  it('sends only the tasks of the chosen project', async () => {
    const { items } = await running.sync<{ project: string }>('task', {
      account,
      filter: { project: 'p-2' },
    });
    expect(items.length).toBeGreaterThan(0);
    expect(items.every((t) => t.project === 'p-2')).toBe(true);
  });

  it('passes the conformance kit, with and without filters', async () => {
    // `now` pinned to the demo data, so the kit's delta sync finds changes and deletions.
    for (const filter of [{}, { project: 'p-1', due: 'this month' }]) {
      const report = await expectConformant(running.url, { account, filter, now: DEMO_NOW });
      expect(report.ok).toBe(true);
    }
  }, 60_000);
});
