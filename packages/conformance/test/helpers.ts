import { type ConformanceOptions, type ConformanceReport, runConformance } from '../src/index.js';
import {
  ACCOUNT,
  ACTIONS_FIXTURE,
  type ReferenceAppOptions,
  startReferenceApp,
} from './fixtures/reference-app.js';

/** Starts the reference app (with an optional fault), runs the kit against it, stops the app. */
export async function runAgainst(
  app: ReferenceAppOptions = {},
  options: ConformanceOptions = {},
): Promise<ConformanceReport & { requests: { method: string; path: string; body: unknown }[] }> {
  const server = await startReferenceApp(app);
  try {
    const report = await runConformance(server.url, {
      account: ACCOUNT,
      actions: ACTIONS_FIXTURE,
      timeoutMs: 2000,
      maxPages: 50,
      ...options,
    });
    return { ...report, requests: server.requests };
  } finally {
    await server.close();
  }
}

export function withStatus(report: ConformanceReport, status: string): string[] {
  return report.checks.filter((c) => c.status === status).map((c) => c.id);
}
