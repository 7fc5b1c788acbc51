/**
 * Vitest helpers: run the whole conformance kit from an app's own test suite.
 *
 * @example
 * conformanceSuite('my app', () => ({ url: server.url, account: { apiKey: 'test' }, strict: true }));
 */
import { describe, it } from 'vitest';
export {
  type CheckDriftOptions,
  checkDrift,
  DriftError,
  type DriftReport,
  type DriftTarget,
} from './check-drift.js';
import { formatReport } from './format.js';
import { runConformance } from './run.js';
import type { ConformanceOptions, ConformanceReport } from './types.js';

export interface ConformanceSuiteOptions extends ConformanceOptions {
  url: string;
}

/** Thrown by `expectConformant`; the message is the formatted report. */
export class ConformanceError extends Error {
  override readonly name = 'ConformanceError';
  constructor(readonly report: ConformanceReport) {
    const { failed, warned } = report.summary;
    const counts = report.strict ? `${failed} failed, ${warned} warned; strict` : `${failed} failed`;
    super(`the app does not conform (${counts}):\n\n${formatReport(report)}`);
  }
}

/**
 * Runs the kit and throws a `ConformanceError` carrying the formatted report when any check fails
 * (or, with `strict: true`, warns).
 */
export async function expectConformant(
  url: string,
  options: ConformanceOptions = {},
): Promise<ConformanceReport> {
  const report = await runConformance(url, options);
  if (!report.ok) throw new ConformanceError(report);
  return report;
}

/**
 * Declares a `describe` block with one test that runs the kit. `setup` is called when the test
 * runs, so it may read values set in `beforeAll` (such as the port of a server started there).
 */
export function conformanceSuite(
  name: string,
  setup: () => ConformanceSuiteOptions | Promise<ConformanceSuiteOptions>,
  testTimeoutMs = 120_000,
): void {
  describe(name, () => {
    it(
      'conforms to the app protocol',
      async () => {
        const { url, ...options } = await setup();
        await expectConformant(url, options);
      },
      testTimeoutMs,
    );
  });
}
