import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Principal } from '../auth/principal.js';
import type { Queryable } from '../db/driver.js';
import { badRequest, conflict, notFound } from '../errors.js';

// Access tokens: only a SHA-256 hash is stored, the token itself is shown once when it is created.

export const MAX_TOKENS_PER_USER = 2;

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');
export const generateToken = () => `wft_${randomBytes(24).toString('base64url')}`;

export interface TokenRecord {
  id: string;
  name: string | null;
  creationDate: string;
}

export async function authenticate(q: Queryable, token: string): Promise<Principal | undefined> {
  const { rows } = await q.query<{ user_id: string; admin: boolean | null }>(
    `SELECT t.user_id, a.admin FROM svc_tokens t LEFT JOIN svc_accounts a ON a.user_id = t.user_id WHERE t.hash = $1`,
    [hashToken(token)],
  );
  const row = rows[0];
  return row ? { id: row.user_id, admin: row.admin === true } : undefined;
}

export async function listTokens(q: Queryable, userId: string): Promise<TokenRecord[]> {
  const { rows } = await q.query<{ id: string; name: string | null; created: string }>(
    `SELECT id, name, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created
     FROM svc_tokens WHERE user_id = $1 ORDER BY created_at, id`,
    [userId],
  );
  return rows.map((r) => ({ id: r.id, name: r.name, creationDate: r.created }));
}

/** Creates a token for a user; the user's token rows are locked so two requests cannot both take the last slot. */
export async function createToken(
  tx: Queryable,
  userId: string,
  name: unknown,
  token: string = generateToken(),
): Promise<TokenRecord & { token: string }> {
  if (name !== undefined && name !== null && (typeof name !== 'string' || name.length > 200)) {
    throw badRequest('name must be a string of at most 200 characters');
  }
  await tx.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [userId]);
  const { rows } = await tx.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM svc_tokens WHERE user_id = $1`,
    [userId],
  );
  if (rows[0]!.n >= MAX_TOKENS_PER_USER) {
    throw conflict(`A user holds at most ${MAX_TOKENS_PER_USER} tokens; delete one first`, 'limit-reached');
  }
  const id = randomUUID();
  await tx.query(`INSERT INTO svc_tokens (id, user_id, hash, name) VALUES ($1, $2, $3, $4)`, [
    id,
    userId,
    hashToken(token),
    (name as string | undefined) ?? null,
  ]);
  const [record] = (await listTokens(tx, userId)).filter((t) => t.id === id);
  return { ...record!, token };
}

export async function deleteToken(q: Queryable, userId: string, id: string): Promise<void> {
  const { rowCount } = await q.query(`DELETE FROM svc_tokens WHERE id::text = $1 AND user_id = $2`, [
    id,
    userId,
  ]);
  if (rowCount === 0) throw notFound(`No token ${id} of this user`);
}
