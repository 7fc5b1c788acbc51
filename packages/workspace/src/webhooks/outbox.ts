import type { Principal } from '../auth/principal.js';
import type { Effect } from '../commands/context.js';
import type { Queryable } from '../db/driver.js';
import { loadCatalog } from '../schema/catalog.js';
import { visibleEffects } from './visible-effects.js';

/**
 * Queues one delivery per webhook subscribed to a type this command changed, in the command's own
 * transaction: a delivery exists exactly when the change was committed, and survives a restart.
 * Each carries the effects as the webhook's creator may see them now (visible-effects.ts); none
 * when nothing is left.
 */
export async function enqueueDeliveries(
  tx: Queryable,
  effects: Effect[],
  user: Principal,
  correlationId: string | undefined,
): Promise<number> {
  if (effects.length === 0) return 0;
  const types = [...new Set(effects.map((e) => e.type))];
  const { rows: hooks } = await tx.query<{
    id: number;
    type_name: string;
    created_by: string | null;
    admin: boolean | null;
  }>(
    `SELECT w.id, w.type_name, w.created_by, a.admin FROM svc_webhooks w
     LEFT JOIN svc_accounts a ON a.user_id = w.created_by
     WHERE w.state = 'active' AND w.type_name = ANY($1::text[])`,
    [types],
  );
  if (hooks.length === 0) return 0;
  const catalog = await loadCatalog(tx);
  const creationDate = new Date().toISOString();
  let queued = 0;
  for (const hook of hooks) {
    const subscriber: Principal = { id: hook.created_by ?? '', admin: hook.admin === true };
    const shown = visibleEffects(
      catalog,
      subscriber,
      effects.filter((e) => e.type === hook.type_name),
    );
    if (shown.length === 0) continue;
    queued++;
    const body = {
      sequenceId: 0,
      authorId: user.id,
      creationDate,
      command: { correlationId: correlationId ?? null },
      effects: shown,
    };
    await tx.query(
      `WITH s AS (SELECT nextval(pg_get_serial_sequence('svc_deliveries', 'id')) AS id)
       INSERT INTO svc_deliveries (id, webhook_id, body)
       SELECT s.id, $1, jsonb_set($2::jsonb, '{sequenceId}', to_jsonb(s.id)) FROM s`,
      [hook.id, JSON.stringify(body)],
    );
  }
  return queued;
}
