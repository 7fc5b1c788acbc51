import type { Queryable } from '../db/driver.js';

// A token bucket per access token, kept in the database so that every workspace process sharing
// one Postgres draws on the same budget. The bucket holds `rate` requests and refills at `rate`
// per second; the database clock is the only clock, so processes need not agree on time.

export interface RateDecision {
  allowed: boolean;
  /** seconds until one more request fits, when not allowed */
  retryAfter: number;
}

export async function takeRequest(q: Queryable, key: string, rate: number): Promise<RateDecision> {
  const refill = `LEAST($2::float8, svc_rate.tokens + EXTRACT(EPOCH FROM clock_timestamp() - svc_rate.at) * $2::float8)`;
  const { rows } = await q.query<{ tokens: number; granted: boolean }>(
    `INSERT INTO svc_rate AS svc_rate (key, tokens, at, granted) VALUES ($1, $2::float8 - 1, clock_timestamp(), true)
     ON CONFLICT (key) DO UPDATE SET
       granted = ${refill} >= 1,
       tokens = CASE WHEN ${refill} >= 1 THEN ${refill} - 1 ELSE ${refill} END,
       at = clock_timestamp()
     RETURNING tokens, granted`,
    [key, rate],
  );
  const row = rows[0]!;
  if (row.granted) return { allowed: true, retryAfter: 0 };
  return { allowed: false, retryAfter: Math.max(1, Math.ceil((1 - row.tokens) / rate)) };
}

/**
 * Charges `cost` more to a bucket a request was already let through by (takeRequest): the rest of
 * a request's commands. The bucket may go below zero: the request runs, and the token's next
 * requests wait until the bucket has refilled past its debt.
 */
export async function chargeMore(q: Queryable, key: string, cost: number): Promise<void> {
  if (cost <= 0) return;
  await q.query(`UPDATE svc_rate SET tokens = tokens - $2::float8 WHERE key = $1`, [key, cost]);
}
