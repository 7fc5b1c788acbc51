import type { AppClient } from '@weft/sync-engine';
import { appFailure } from './account-flows.js';
import type { SourceRow } from './source-store.js';

// The types an app offers that its source does not sync: a type added to the app is not synced
// until the source asks for it (as in the service, where the user picks the types), so `weft dev`
// names them and how to add them.

export async function unsyncedTypes(
  client: AppClient,
  source: SourceRow,
  account: Record<string, unknown>,
): Promise<{ id: string; name: string }[]> {
  const config = await client.config(account).catch((e) => {
    throw appFailure(e);
  });
  return config.types.filter((t) => !source.types.includes(t.id)).map((t) => ({ id: t.id, name: t.name }));
}
