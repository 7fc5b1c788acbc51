import type { Queryable } from '../db/driver.js';
import type { Effect } from './context.js';

/**
 * Whether any active webhook, or any enabled create/update automation, watches a type these
 * effects changed: one query instead of one per kind of listener, and neither outbox is looked at
 * when nothing listens (the usual case for a bulk write). The automation condition is the one
 * enqueueAutomationRuns starts with, so a false here means it would have queued nothing.
 */
export async function listeners(
  tx: Queryable,
  effects: readonly Effect[],
): Promise<{ webhooks: boolean; automations: boolean }> {
  const types = new Set<string>();
  const changed = new Set<string>();
  for (const e of effects) {
    types.add(e.type);
    if (e.effect === 'svc.entity/create' || e.effect === 'svc.entity/update') changed.add(e.type);
  }
  const { rows } = await tx.query<{ webhooks: boolean; automations: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM svc_webhooks WHERE state = 'active' AND type_name = ANY($1::text[])) AS webhooks,
       EXISTS (SELECT 1 FROM weft_automations WHERE enabled AND trigger IN ('created', 'updated')
               AND type_name = ANY($2::text[])) AS automations`,
    [[...types], [...changed]],
  );
  return rows[0]!;
}
