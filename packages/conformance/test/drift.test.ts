// `--drift` of the kit against the apps written to drift (and a correct one): the upstream is
// changed while the kit waits between the first full sync and the delta, as a user would.
import { type TestApp, testApp } from '@weft/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import {
  changeTracker,
  DRIFT_BUGS,
  type DriftBug,
  Tracker,
  trackerApp,
} from '../../sync-engine/test/drift-apps.js';
import { type ConformanceReport, runConformance, runConformanceCli } from '../src/index.js';

let running: TestApp | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function check(bug: DriftBug | undefined, change: boolean): Promise<ConformanceReport> {
  const tracker = new Tracker();
  running = await testApp(trackerApp(tracker, bug));
  return runConformance(running.url, {
    drift: true,
    driftWaitSeconds: 0.01,
    onProgress: (e) => {
      if (e.kind === 'drift-wait' && change) changeTracker(tracker);
    },
  });
}
const driftCheck = (report: ConformanceReport) => report.checks.find((c) => c.id === 'drift.rows');

describe('weft check --drift', () => {
  it('passes a correct app whose upstream changes during the wait', async () => {
    const report = await check(undefined, true);
    expect(driftCheck(report)).toMatchObject({ status: 'pass' });
    expect(driftCheck(report)?.reason).toMatch(
      /^12 rows equal after the delta \(delta answer, 7 set, 1 removed\)/,
    );
    expect(report.ok).toBe(true);
    expect(report.drift?.[0]).toMatchObject({ missing: 0, extra: 0, changed: 0 });
  }, 30_000);

  it.each(DRIFT_BUGS)(
    'catches the %s app',
    async (bug) => {
      const report = await check(bug, true);
      expect(driftCheck(report)?.status).toBe('fail');
      expect(report.ok).toBe(false);
    },
    30_000,
  );

  it('catches unstable ids against a static upstream, where the other bugs lose nothing', async () => {
    expect(driftCheck(await check('unstable-ids', false))?.reason).toMatch(/12 extra .*12 missing/);
    await running?.close();
    expect(driftCheck(await check('no-remove', false))?.status).toBe('pass');
  }, 30_000);

  it('names what drifted, and the CLI tells the user when to change the upstream', async () => {
    const tracker = new Tracker();
    running = await testApp(trackerApp(tracker, 'no-remove'));
    let stdout = '';
    let stderr = '';
    const code = await runConformanceCli([running.url, '--drift', '--drift-wait', '0.2'], {
      stdout: { write: (t: string) => (stdout += t) },
      stderr: {
        write: (t: string) => {
          stderr += t;
          if (t.includes('change the upstream now')) changeTracker(tracker);
        },
      },
      env: {},
    });
    expect(stderr).toContain('the delta sync starts in 0.2 s');
    expect(code).toBe(1);
    expect(stdout).toMatch(/FAIL\s+drift\.rows.*task: 1 extra \(the delta never removed them: 't02'\)/);
  }, 30_000);

  it('refuses --drift-wait without --drift, and a wait that is not seconds', async () => {
    const io = { stdout: { write: () => true }, stderr: { write: () => true }, env: {} };
    expect(await runConformanceCli(['http://127.0.0.1:9', '--drift-wait', '2'], io)).toBe(2);
    expect(await runConformanceCli(['http://127.0.0.1:9', '--drift', '--drift-wait', 'soon'], io)).toBe(2);
  });
});
