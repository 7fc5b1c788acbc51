import type { Principal } from '../auth/principal.js';
import type { Effect } from '../commands/context.js';
import type { Queryable } from '../db/driver.js';

/**
 * Queues one delivery per webhook subscribed to a type this command changed, in the command's own
 * transaction: a delivery exists exactly when the change was committed, and survives a restart.
 */
export async function enqueueDeliveries(
  tx: Queryable,
  effects: Effect[],
  user: Principal,
  correlationId: string | undefined,
): Promise<number> {
  if (effects.length === 0) return 0;
  const types = [...new Set(effects.map((e) => e.type))];
  const { rows: hooks } = await tx.query<{ id: number; type_name: string }>(
    `SELECT id, type_name FROM svc_webhooks WHERE state = 'active' AND type_name = ANY($1::text[])`,
    [types],
  );
  const creationDate = new Date().toISOString();
  for (const hook of hooks) {
    const body = {
      sequenceId: 0,
      authorId: user.id,
      creationDate,
      command: { correlationId: correlationId ?? null },
      effects: effects.filter((e) => e.type === hook.type_name),
    };
    await tx.query(
      `WITH s AS (SELECT nextval(pg_get_serial_sequence('svc_deliveries', 'id')) AS id)
       INSERT INTO svc_deliveries (id, webhook_id, body)
       SELECT s.id, $1, jsonb_set($2::jsonb, '{sequenceId}', to_jsonb(s.id)) FROM s`,
      [hook.id, JSON.stringify(body)],
    );
  }
  return hooks.length;
}
