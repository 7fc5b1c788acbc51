import type { Queryable } from '../db/driver.js';
import { WorkspaceError } from '../errors.js';
import type { SecretBox } from './secret-box.js';

// An OAuth connection waits between its start and the provider's callback. What it needs then
// (the source to create or the source whose account is replaced, and for OAuth 1 the request
// token and its secret) is sealed in weft_host_oauth under the connection's `state`, never kept
// in process memory: the callback may reach another workspace process on the same database.

type Json = Record<string, unknown>;

/** The settings of a source to create once the account is connected (as POST /api/host/sources, without account). */
export interface OAuthSourceInput {
  url: string;
  types?: string[] | undefined;
  filter?: Json | undefined;
  keepUnsynced?: boolean | undefined;
  intervalSeconds?: number | null | undefined;
}

export interface PendingOAuth {
  /** the authentication id: `oauth` (OAuth 1) or `oauth2` */
  kind: 'oauth' | 'oauth2';
  /** a new source */
  input?: OAuthSourceInput;
  /** re-authorising this existing source */
  sourceId?: string;
  /** OAuth 1: the request token and secret the app obtained at the start */
  token?: string;
  secret?: string;
}

/** How long a started connection may wait for its callback. */
const WAIT = `interval '1 hour'`;

export async function savePending(
  q: Queryable,
  box: SecretBox,
  state: string,
  pending: PendingOAuth,
): Promise<void> {
  await q.query(`DELETE FROM weft_host_oauth WHERE created_at < now() - ${WAIT}`);
  await q.query(`INSERT INTO weft_host_oauth (state, request_enc) VALUES ($1, $2)`, [
    state,
    box.seal(pending),
  ]);
}

/** Takes (and so uses up) the pending connection of `state`; a second callback with it is refused. */
export async function takePending(
  q: Queryable,
  box: SecretBox,
  state: string,
  kind: PendingOAuth['kind'],
): Promise<PendingOAuth> {
  const { rows } = await q.query<{ request_enc: string }>(
    `DELETE FROM weft_host_oauth WHERE state = $1 AND created_at > now() - ${WAIT} RETURNING request_enc`,
    [state],
  );
  const row = rows[0];
  if (!row) throw new WorkspaceError(400, 'bad-request', 'Unknown or expired OAuth state');
  const opened = box.open<Json>(row.request_enc);
  // A row written before re-authorisation existed holds the source settings alone (OAuth 2).
  const pending: PendingOAuth =
    opened.kind === 'oauth' || opened.kind === 'oauth2'
      ? (opened as unknown as PendingOAuth)
      : { kind: 'oauth2', input: opened as unknown as OAuthSourceInput };
  if (pending.kind !== kind) throw new WorkspaceError(400, 'bad-request', 'Unknown or expired OAuth state');
  return pending;
}
