// The delta sync loses nothing: what changes upstream between two syncs reaches the service as a
// full sync would have it. Against the local stand-in tracker, live (no cassette): the upstream
// has to change between the syncs.
import { checkDrift } from '@weft/conformance/vitest';
import { afterAll, beforeAll, it } from 'vitest';
import { app } from '../src/app.js';
import { DEMO_TOKEN } from '../src/tracker-data.js';
import { type RunningTracker, startTracker, trackerEdits } from '../src/tracker-server.js';

let demoTracker: RunningTracker;
beforeAll(async () => {
  demoTracker = await startTracker();
  process.env.TRACKER_URL = demoTracker.url;
});
afterAll(async () => {
  delete process.env.TRACKER_URL;
  await demoTracker.close();
});

it('removes a task deleted upstream and updates one renamed, in the delta sync', async () => {
  await checkDrift(app, {
    account: { token: DEMO_TOKEN },
    change: () => {
      trackerEdits.deleteTask('t-05');
      trackerEdits.renameTask('t-06', 'Renamed upstream');
    },
  });
});
