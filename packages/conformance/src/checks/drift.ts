import { SYNC_ACTION_FIELD } from '@weft/core/protocol';
import { describeDrift, hasDrift, runDrift, type TypeDrift } from '@weft/sync-engine';
import { randomUUID } from 'node:crypto';
import type { SyncEnv } from './sync.js';
import { KIT_RETRY } from './sync.js';

// `--drift`: the delta must lose nothing. A full sync, the delta since it (after an optional
// wait, in which a user may change the upstream), a second full sync; per type, the state the
// delta leaves must equal the second full sync, per id and value (see docs/drift.md). The rows
// themselves are judged by the data and delta checks; here only what they add up to.

export interface DriftCheckOptions {
  /** seconds to wait between the first full sync and the delta (the upstream may change) */
  waitSeconds: number;
  /** told when the wait starts, so that a user (or a test) changes the upstream then */
  onWait?: (seconds: number) => void;
}

export async function checkDrift(env: SyncEnv, options: DriftCheckOptions): Promise<TypeDrift[]> {
  const { ctx, schema } = env;
  const types: Record<string, string[]> = {};
  for (const t of env.types) {
    const fields = schema?.get(t);
    if (!fields) {
      ctx.skip('drift.rows', { subject: t, reason: 'no usable schema for this type' });
      continue;
    }
    types[t] = [...fields.keys()].filter((f) => f !== 'id' && f !== SYNC_ACTION_FIELD);
  }
  if (Object.keys(types).length === 0) return [];
  try {
    const run = await runDrift(ctx.client, {
      types,
      account: env.account,
      filter: env.filter,
      operationId: randomUUID(),
      ...(env.schemaAnswer ? { schema: env.schemaAnswer } : {}),
      retry: KIT_RETRY,
      between: async () => {
        if (options.waitSeconds <= 0) return;
        options.onWait?.(options.waitSeconds);
        await new Promise((resolve) => setTimeout(resolve, options.waitSeconds * 1000));
      },
    });
    for (const drift of run.drift) {
      const delta = run.delta[drift.type];
      const how = delta
        ? `${delta.synchronizationType} answer, ${delta.set} set, ${delta.removed} removed`
        : 'no delta';
      if (hasDrift(drift)) ctx.fail('drift.rows', { subject: drift.type, reason: describeDrift(drift) });
      else
        ctx.pass('drift.rows', {
          subject: drift.type,
          reason: `${drift.rows} rows equal after the delta (${how})`,
        });
    }
    return run.drift;
  } catch (error) {
    // The data and delta checks report what the app answered; the drift cannot be judged.
    for (const t of Object.keys(types))
      ctx.skip('drift.rows', {
        subject: t,
        reason: `the drift syncs could not be read: ${(error as Error).message}`,
      });
    return [];
  }
}
