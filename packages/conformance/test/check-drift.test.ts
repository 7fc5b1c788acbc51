// checkDrift, as an app's own test uses it: the app definition, the change to the upstream, and
// the drift named in the error (five apps written to drift, one correct app).
import { describe, expect, it } from 'vitest';
import { changeTracker, DRIFT_BUGS, Tracker, trackerApp } from '../../sync-engine/test/drift-apps.js';
import { checkDrift, DriftError } from '../src/vitest.js';

describe('checkDrift', () => {
  it('passes a correct app: delete, edit and add upstream, the delta carries them', async () => {
    const tracker = new Tracker();
    const report = await checkDrift(trackerApp(tracker), { change: () => changeTracker(tracker) });
    expect(report.ok).toBe(true);
    expect(report.delta.task).toMatchObject({ synchronizationType: 'delta', removed: 1 });
  });

  it.each(DRIFT_BUGS)('throws a DriftError naming what the %s app lost', async (bug) => {
    const tracker = new Tracker();
    const error = await checkDrift(trackerApp(tracker, bug), { change: () => changeTracker(tracker) }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DriftError);
    expect((error as DriftError).message).toMatch(/^the delta sync drifted from a full sync:\n {2}task: /);
    expect((error as DriftError).report.ok).toBe(false);
  });

  it('says which field the delta never updated, and runs before, change and after in order', async () => {
    const tracker = new Tracker();
    const steps: string[] = [];
    const report = await checkDrift(trackerApp(tracker, 'quiet-value'), {
      types: ['task'],
      throws: false,
      before: () => steps.push(`before ${tracker.views}`),
      change: () => {
        steps.push(`change ${tracker.views}`);
        tracker.batch(() => tracker.renameProject('p1', 'Orchard'));
      },
      after: () => steps.push(`after ${tracker.views}`),
    });
    expect(steps).toEqual(['before 0', 'change 1', 'after 3']);
    expect(report.types[0]).toMatchObject({ changed: 4, missing: 0, extra: 0 });
    expect(report.types[0]?.samples.changed[0]).toEqual({
      id: 't01',
      fields: ['project'],
      actual: { project: 'Orchard' },
    });
  });
});
