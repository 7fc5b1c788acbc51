import type { Queryable } from '../db/driver.js';
import type { Effect } from './context.js';

/** Whether anything watches changes to a type: an active webhook, an enabled create/update automation. */
export interface Listening {
  webhooks: boolean;
  automations: boolean;
}

/**
 * SQL for "does an active webhook watch one of the types in the text[] parameter `types`", and
 * "does an enabled create/update automation watch one of `changed`": the conditions
 * enqueueDeliveries and enqueueAutomationRuns start with, so a false means they would have queued
 * nothing.
 */
export const watchedSql = (types: string, changed: string) =>
  `EXISTS (SELECT 1 FROM svc_webhooks WHERE state = 'active' AND type_name = ANY(${types}::text[])) AS webhooks,
   EXISTS (SELECT 1 FROM weft_automations WHERE enabled AND trigger IN ('created', 'updated')
           AND type_name = ANY(${changed}::text[])) AS automations`;

/**
 * Whether anything listens to the types these effects changed (automations only to creates and
 * updates): one query instead of one per kind of listener, and none at all when every type was
 * already looked up in this transaction (`known`, filled by bulk creates along the way). Neither
 * outbox is looked at when nothing listens, the usual case for a bulk write.
 */
export async function listeners(
  tx: Queryable,
  effects: readonly Effect[],
  known?: ReadonlyMap<string, Listening>,
): Promise<Listening> {
  const types = new Set<string>();
  const changed = new Set<string>();
  for (const e of effects) {
    types.add(e.type);
    if (e.effect === 'svc.entity/create' || e.effect === 'svc.entity/update') changed.add(e.type);
  }
  if (known && [...types].every((t) => known.has(t))) {
    const out: Listening = { webhooks: false, automations: false };
    for (const t of types) {
      const l = known.get(t)!;
      out.webhooks ||= l.webhooks;
      if (changed.has(t)) out.automations ||= l.automations;
    }
    return out;
  }
  const { rows } = await tx.query<Listening>(`SELECT ${watchedSql('$1', '$2')}`, [[...types], [...changed]]);
  return rows[0]!;
}

/**
 * What listens to one type (automations as to its creates and updates), as already looked up in
 * this transaction (`known`), else looked up and added to it.
 */
export async function listeningTo(
  tx: Queryable,
  type: string,
  known?: Map<string, Listening>,
): Promise<Listening> {
  const seen = known?.get(type);
  if (seen) return seen;
  const { rows } = await tx.query<Listening>(`SELECT ${watchedSql('$1', '$1')}`, [[type]]);
  const found = rows[0]!;
  known?.set(type, found);
  return found;
}
