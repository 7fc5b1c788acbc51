import type { Principal } from '../auth/principal.js';
import { executeCommands } from '../commands/dispatcher.js';
import type { Driver } from '../db/driver.js';
import type { Namespace } from '@weft/namespace';

/** The acting user as a script's `args.currentUser` (the service's shape). */
export async function loadPrincipal(driver: Driver, userId: string | null): Promise<Principal | undefined> {
  if (!userId) return undefined;
  const { rows } = await driver.query<{ admin: boolean }>(
    `SELECT admin FROM svc_accounts WHERE user_id = $1`,
    [userId],
  );
  return rows[0] ? { id: userId, admin: rows[0].admin === true } : undefined;
}

export async function currentUser(driver: Driver, user: Principal | undefined, namespace: Namespace = 'svc') {
  if (!user) return null;
  const [result] = await executeCommands(
    driver,
    [
      {
        command: 'svc.entity/query',
        args: {
          query: {
            'q/from': 'svc/user',
            'q/select': [
              'svc/id',
              'svc/public-id',
              'svc/creation-date',
              'svc/modification-date',
              'user/name',
              'user/email',
            ],
            'q/where': ['=', ['svc/id'], '$id'],
            'q/limit': 1,
          },
          params: { $id: user.id },
        },
      },
    ],
    { id: user.id, admin: true },
  );
  const row = result?.success ? (result.result as Record<string, unknown>[])[0] : undefined;
  if (!row) return null;
  return {
    'Public Id': row['svc/public-id'] ?? null,
    Id: row['svc/id'],
    Email: row['user/email'] ?? null,
    'Creation Date': row['svc/creation-date'] ?? null,
    'Modification Date': row['svc/modification-date'] ?? null,
    Name: row['user/name'] ?? null,
    Role: user.admin ? { Id: 'admin', Name: 'Admin' } : { Id: 'member', Name: 'Member' },
    type: `${namespace}/user`,
  };
}
