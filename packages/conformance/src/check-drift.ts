/**
 * `checkDrift`: the drift property (docs/drift.md) from an app's own tests, against an upstream
 * the test changes between syncs. It lives in the kit, not in `@weft/core/testing`, because it
 * runs the sync engine, which depends on core (core cannot depend on it back).
 *
 * @example
 * it('removes a task deleted upstream', async () => {
 *   await checkDrift(app, { account, change: () => tracker.delete('t-05') });
 * });
 */
import type { AppDefinition } from '@weft/core';
import {
  AppClient,
  type DeltaSummary,
  describeDrift,
  driftFields,
  hasDrift,
  runDrift,
  type TypeDrift,
} from '@weft/sync-engine';

type Json = Record<string, unknown>;
type Step = () => unknown;

export interface CheckDriftOptions {
  account?: Json;
  filter?: Json;
  /** the types to check; default every type of the app's config */
  types?: string[];
  /** runs before the first full sync (set the upstream up) */
  before?: Step;
  /** runs between the first full sync and the delta sync: change the upstream here */
  change?: Step;
  /** runs after the second full sync (put the upstream back) */
  after?: Step;
  /** throw a `DriftError` when a type drifted (default true); false resolves with the report */
  throws?: boolean;
}

export interface DriftReport {
  ok: boolean;
  /** sent as `lastSynchronizedAt` in the delta sync: when the first full sync started */
  lastSynchronizedAt: string;
  delta: Record<string, DeltaSummary>;
  types: TypeDrift[];
}

/** Thrown by `checkDrift`: the message names, per type, what the delta lost. */
export class DriftError extends Error {
  override readonly name = 'DriftError';
  constructor(readonly report: DriftReport) {
    super(
      `the delta sync drifted from a full sync:\n${report.types
        .filter(hasDrift)
        .map((d) => `  ${describeDrift(d)}`)
        .join('\n')}`,
    );
  }
}

/** An app definition (started on a free port for the check), a running app's URL, or a `TestApp`. */
export type DriftTarget = AppDefinition<any, any, any, any> | string | { url: string };

/**
 * A full sync, `change()`, the delta since the full sync, a second full sync: per type, the rows
 * the delta leaves (by the service's rules) must equal the second full sync, per id and value.
 */
export async function checkDrift(app: DriftTarget, options: CheckDriftOptions = {}): Promise<DriftReport> {
  // Loaded only to start a definition: a kit run against a URL never loads core's server (Express,
  // the OAuth clients), which took a third of the kit's resident memory at start.
  const started =
    typeof app === 'string' || 'url' in app
      ? undefined
      : await (await import('@weft/core/testing')).testApp(app);
  const url = typeof app === 'string' ? app : 'url' in app ? app.url : (started?.url as string);
  try {
    const client = new AppClient(url);
    const account = options.account ?? {};
    const filter = options.filter ?? {};
    await options.before?.();
    const typeIds = options.types ?? (await client.config(account)).types.map((t) => t.id);
    const schema = await client.schema(typeIds, filter, account);
    const run = await runDrift(client, {
      types: Object.fromEntries(typeIds.map((t) => [t, driftFields(schema[t])])),
      account,
      filter,
      schema,
      between: async () => {
        await options.change?.();
      },
    });
    await options.after?.();
    const report: DriftReport = {
      ok: !run.drift.some(hasDrift),
      lastSynchronizedAt: run.lastSynchronizedAt,
      delta: run.delta,
      types: run.drift,
    };
    if (!report.ok && options.throws !== false) throw new DriftError(report);
    return report;
  } finally {
    await started?.close();
  }
}
