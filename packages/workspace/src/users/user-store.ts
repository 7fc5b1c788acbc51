import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/driver.js';
import { USER_TYPE } from '../schema/builtins.js';
import { loadCatalog } from '../schema/catalog.js';
import { allocatePublicIds } from '../schema/schema-store.js';

// Users are entities of svc/user (so queries and relations reach them); svc_accounts adds the role.

export interface UserRecord {
  'svc/id': string;
  'user/name': string | null;
  'user/email': string | null;
  admin: boolean;
}

const col = (storage: unknown) => (storage as { col: string }).col;

export async function createUser(
  tx: Queryable,
  input: { name: string; email?: string | null; admin?: boolean; id?: string },
): Promise<UserRecord> {
  const catalog = await loadCatalog(tx);
  const type = catalog.type(USER_TYPE);
  const id = input.id ?? randomUUID();
  const publicId = await allocatePublicIds(tx, type.id, 1);
  await tx.query(
    `INSERT INTO ${type.table} (id, public_id, ${col(type.byName.get('user/name')!.storage)}, ${col(
      type.byName.get('user/email')!.storage,
    )}) VALUES ($1, $2, $3, $4)`,
    [id, String(publicId), input.name, input.email ?? null],
  );
  await tx.query(`INSERT INTO svc_accounts (user_id, admin) VALUES ($1, $2)`, [id, input.admin ?? false]);
  return {
    'svc/id': id,
    'user/name': input.name,
    'user/email': input.email ?? null,
    admin: input.admin ?? false,
  };
}

export async function listUsers(q: Queryable): Promise<UserRecord[]> {
  const catalog = await loadCatalog(q);
  const type = catalog.type(USER_TYPE);
  const { rows } = await q.query<{
    id: string;
    name: string | null;
    email: string | null;
    admin: boolean | null;
  }>(
    `SELECT u.id, u.${col(type.byName.get('user/name')!.storage)} AS name,
            u.${col(type.byName.get('user/email')!.storage)} AS email, a.admin
     FROM ${type.table} u LEFT JOIN svc_accounts a ON a.user_id = u.id ORDER BY u.created, u.id`,
  );
  return rows.map((r) => ({
    'svc/id': r.id,
    'user/name': r.name,
    'user/email': r.email,
    admin: r.admin === true,
  }));
}

export async function findAdmin(q: Queryable): Promise<string | undefined> {
  const { rows } = await q.query<{ user_id: string }>(
    `SELECT user_id FROM svc_accounts WHERE admin ORDER BY user_id LIMIT 1`,
  );
  return rows[0]?.user_id;
}
