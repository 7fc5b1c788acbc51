// `weft dev`'s arguments checked against the app before the workspace boots (which takes long on a
// loaded machine): an app whose authentication asks for account fields needs `--account` when
// the data folder holds no source yet, said at once with the flag and an example.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { AppClient } from '@weft/sync-engine';
import { UsageError } from '../io.js';

const OAUTH_IDS = new Set(['oauth', 'oauth2']);

/** True when the PGlite folder holds no database yet (so no source either). */
export function isFreshDataFolder(folder: string | undefined): boolean {
  return folder !== undefined && !existsSync(join(folder, 'PG_VERSION'));
}

export interface PreflightInput {
  appUrl: string;
  /** the target as typed, for the example */
  target: string;
  auth?: string | undefined;
  account?: Record<string, unknown> | undefined;
}

/** Throws a UsageError naming `--account` (or `--auth`) when the first start cannot add the source. */
export async function checkAccountArgs(input: PreflightInput): Promise<void> {
  if (input.account) return;
  const descriptor = await new AppClient(input.appUrl, { keepJsonText: false }).descriptor();
  const auths = descriptor.authentication;
  const auth = input.auth ? auths.find((a) => a.id === input.auth) : auths[0];
  if (!auth)
    throw new UsageError(
      `--auth: the app has no authentication ${JSON.stringify(input.auth)} (it has ${auths.map((a) => a.id).join(', ')})`,
    );
  // OAuth accounts are connected in a browser; `none` needs nothing.
  if (auth.id === 'none' || OAUTH_IDS.has(auth.id)) return;
  const needed = (auth.fields ?? []).filter((f) => f.type !== 'link' && !f.optional).map((f) => f.id);
  if (needed.length === 0) return;
  const example = JSON.stringify(Object.fromEntries(needed.map((id) => [id, '...'])));
  throw new UsageError(
    `--account is needed: the app's authentication "${auth.id}" asks for ${needed.join(', ')}. ` +
      `For example: weft dev ${input.target} --account '${example}' (or --account account.json, a file holding that JSON)`,
  );
}
