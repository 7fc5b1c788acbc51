import { randomUUID } from 'node:crypto';
import { AppCallError, type AppClient, type OAuth2Callback } from '@weft/sync-engine';
import type { Driver } from '../db/driver.js';
import { WorkspaceError } from '../errors.js';
import { oauth1AccessToken, oauth1Authorize } from './oauth1-calls.js';
import { type OAuthSourceInput, type PendingOAuth, savePending, takePending } from './oauth-pending.js';
import type { SecretBox } from './secret-box.js';
import { type SourceRow, sourceView } from './source-store.js';
import { safeMessage } from './sync-run.js';

// Accounts of sources beyond the first form: OAuth 1 and OAuth 2 connections (for a new source or
// to re-authorise an existing one) and re-authorising a form account with new field values.
// Every new account is validated through the app (POST /validate) before it is sealed and stored;
// the account values never leave this module except towards the app.

type Json = Record<string, unknown>;
type View = ReturnType<typeof sourceView>;

export interface AccountFlowContext {
  driver: Driver;
  box: SecretBox;
  client(url: string): AppClient;
  /** where the provider sends the user's browser back: this workspace's public address */
  publicUrl(): string;
  source(id: string): Promise<SourceRow>;
  /** creates the source with an account the OAuth exchange returned */
  addSource(input: OAuthSourceInput & { authId: string }, oauthValues: Json): Promise<View>;
  /** a source's account was replaced (re-authorised) and stored */
  accountReplaced(sourceId: string): Promise<void>;
}

interface AuthField {
  id: string;
  type: string;
  optional?: boolean;
  secret?: boolean;
}
interface AuthDef {
  id: string;
  name?: string;
  fields?: AuthField[];
}

/** Keys the workspace adds to an account when it sends it; never stored as account values. */
export const SYSTEM_KEYS: readonly string[] = ['auth', '_id', 'name', 'app', 'owner', 'state'];

const badRequest = (message: string) => new WorkspaceError(400, 'bad-request', message);

/** An app's error as the host reports it: 400 for what the user can fix, 502 otherwise. */
export function appFailure(error: unknown): WorkspaceError {
  if (error instanceof AppCallError) {
    const status = error.status === 401 || error.status === 400 ? 400 : 502;
    return new WorkspaceError(status, status === 400 ? 'bad-request' : 'internal', error.message);
  }
  return error instanceof WorkspaceError ? error : new WorkspaceError(502, 'internal', safeMessage(error));
}

/** A field whose value is never sent back to a browser or shown. */
export const isSecretField = (f: { type: string; secret?: boolean }) =>
  f.type === 'password' || f.secret === true;

function authOf(source: SourceRow): AuthDef | undefined {
  const auths = (source.descriptor as { authentication?: AuthDef[] }).authentication ?? [];
  return auths.find((a) => a.id === source.auth_id);
}

export class AccountFlows {
  constructor(private readonly ctx: AccountFlowContext) {}

  private base(): string {
    return this.ctx.publicUrl().replace(/\/+$/, '');
  }

  oauth2CallbackUrl(): string {
    return `${this.base()}/hooks/oauth2/callback`;
  }

  /** OAuth 1 carries the state in the callback address itself; the app must keep it. */
  oauth1CallbackUrl(state: string): string {
    return `${this.base()}/hooks/oauth1/callback?state=${encodeURIComponent(state)}`;
  }

  private async requireAuth(url: string, kind: 'oauth' | 'oauth2'): Promise<void> {
    const descriptor = await this.ctx
      .client(url)
      .descriptor()
      .catch((e) => {
        throw appFailure(e);
      });
    if (!descriptor.authentication.some((a) => a.id === kind))
      throw badRequest(`The app has no ${kind === 'oauth' ? 'OAuth 1' : 'OAuth 2'} authentication`);
  }

  /**
   * First step of an OAuth connection, for a new source (`input`) or to re-authorise `sourceId`:
   * asks the app for the provider's address with this workspace's callback; what the callback
   * needs waits sealed in the database.
   */
  async start(
    kind: 'oauth' | 'oauth2',
    target: { input: OAuthSourceInput } | { sourceId: string },
  ): Promise<{ redirectUri: string; state: string }> {
    let url: string;
    if ('sourceId' in target) {
      const source = await this.ctx.source(target.sourceId);
      if (source.auth_id !== kind)
        throw badRequest(
          `The source's account is not an ${kind === 'oauth' ? 'OAuth 1' : 'OAuth 2'} account (${source.auth_id})`,
        );
      url = source.url;
    } else {
      url = target.input.url;
      try {
        if (!/^https?:$/.test(new URL(url).protocol)) throw new Error();
      } catch {
        throw badRequest('url must be an http(s) address');
      }
      await this.requireAuth(url, kind);
    }
    const client = this.ctx.client(url);
    const state = randomUUID();
    const pending: PendingOAuth = { kind, ...target };
    let redirectUri: string;
    if (kind === 'oauth2') {
      redirectUri = await client.oauth2Authorize(this.oauth2CallbackUrl(), state).catch((e) => {
        throw appFailure(e);
      });
    } else {
      const answer = await oauth1Authorize(client, this.oauth1CallbackUrl(state)).catch((e) => {
        throw appFailure(e);
      });
      redirectUri = answer.redirectUri;
      pending.token = answer.token;
      pending.secret = answer.secret;
    }
    await savePending(this.ctx.driver, this.ctx.box, state, pending);
    return { redirectUri, state };
  }

  /** The OAuth 2 callback: the app exchanges the code; the source is created or its account replaced. */
  async finishOAuth2(callback: OAuth2Callback & { state: string }): Promise<View> {
    const pending = await takePending(this.ctx.driver, this.ctx.box, callback.state, 'oauth2');
    const url = await this.urlOf(pending);
    const values = await this.ctx
      .client(url)
      .oauth2AccessToken(this.oauth2CallbackUrl(), callback)
      .catch((e) => {
        throw appFailure(e);
      });
    return this.complete(pending, values);
  }

  /** The OAuth 1 callback: the request token comes back approved with the provider's verifier. */
  async finishOAuth1(state: string, verifier: string, token?: string): Promise<View> {
    const pending = await takePending(this.ctx.driver, this.ctx.box, state, 'oauth');
    if (!pending.token || !pending.secret) throw badRequest('Unknown or expired OAuth state');
    // The provider names the token it approved: it must be the one this connection asked for.
    if (token !== undefined && token !== pending.token) throw badRequest('The OAuth token does not match');
    const url = await this.urlOf(pending);
    const values = await oauth1AccessToken(this.ctx.client(url), {
      token: pending.token,
      secret: pending.secret,
      callbackUri: this.oauth1CallbackUrl(state),
      verifier,
    }).catch((e) => {
      throw appFailure(e);
    });
    return this.complete(pending, values);
  }

  private async urlOf(pending: PendingOAuth): Promise<string> {
    if (pending.sourceId) return (await this.ctx.source(pending.sourceId)).url;
    if (pending.input) return pending.input.url;
    throw badRequest('Unknown or expired OAuth state');
  }

  private async complete(pending: PendingOAuth, values: Json): Promise<View> {
    if (pending.sourceId) {
      const source = await this.ctx.source(pending.sourceId);
      return this.store(source, values);
    }
    return this.ctx.addSource({ ...(pending.input as OAuthSourceInput), authId: pending.kind }, values);
  }

  /**
   * Re-authorises a form account: the given field values replace the stored ones; a field left
   * out or empty keeps its stored value (so secrets need not be typed again), `null` clears an
   * optional one. The result is validated through the app before it is stored.
   */
  async replaceFields(id: string, given: Record<string, unknown>): Promise<View> {
    const source = await this.ctx.source(id);
    if (source.auth_id === 'oauth' || source.auth_id === 'oauth2')
      throw badRequest('An OAuth account is re-authorised through POST /api/host/sources/:id/oauth/start');
    if (source.auth_id === 'none') throw badRequest('The source has no account');
    const auth = authOf(source);
    if (!auth) throw badRequest(`The app no longer offers the authentication ${source.auth_id}`);
    const current = source.account_enc ? this.ctx.box.open(source.account_enc) : {};
    const known = new Set((auth.fields ?? []).map((f) => f.id));
    const unknown = Object.keys(given).filter((k) => !known.has(k));
    if (unknown.length > 0) throw badRequest(`The account has no field ${unknown.join(', ')}`);
    const values: Json = {};
    for (const f of auth.fields ?? []) {
      if (f.type === 'link' || f.type === 'oauth') continue;
      const v = given[f.id];
      if (v === null) continue;
      if (v === undefined || v === '') {
        if (current[f.id] !== undefined) values[f.id] = current[f.id];
      } else values[f.id] = v;
      if (values[f.id] === undefined && !f.optional)
        throw badRequest(`Account field ${JSON.stringify(f.id)} is required`);
    }
    return this.store(source, values);
  }

  /** Replaces the account with exactly these values (validated through the app first). */
  async replaceAll(id: string, given: Json): Promise<View> {
    const source = await this.ctx.source(id);
    if (source.auth_id === 'none') throw badRequest('The source has no account');
    const values = { ...given };
    for (const k of SYSTEM_KEYS) delete values[k];
    return this.store(source, values);
  }

  /** Validates the new account values through the app, then seals and stores them on the source. */
  private async store(source: SourceRow, values: Json): Promise<View> {
    const account = { ...values, auth: source.auth_id, _id: source.id };
    const answer = await this.ctx
      .client(source.url)
      .validate(source.auth_id, account)
      .catch((e) => {
        throw appFailure(e);
      });
    const { name, ...extra } = answer;
    const stored: Json = { ...values, ...extra };
    for (const k of SYSTEM_KEYS) delete stored[k];
    await this.ctx.driver.query(
      `UPDATE weft_host_sources SET account_enc = $2, account_name = $3 WHERE id = $1`,
      [source.id, this.ctx.box.seal(stored), name],
    );
    await this.ctx.accountReplaced(source.id);
    return sourceView(await this.ctx.source(source.id));
  }

  /**
   * What a re-authorise form may show of an account: its fields, with the stored values of the
   * fields that are not secret; of a secret field only whether a value is stored.
   */
  async describe(id: string) {
    const source = await this.ctx.source(id);
    const auth = authOf(source);
    const current = source.account_enc ? this.ctx.box.open(source.account_enc) : {};
    const fields = (auth?.fields ?? []).map((f) => {
      const { value: preset, ...shown } = f as AuthField & { value?: unknown; [k: string]: unknown };
      const secret = isSecretField(f);
      const value = current[f.id];
      const stored = value !== undefined && value !== null && value !== '';
      // A link field's value is the link itself; a secret field's stored value is never given out.
      const visible =
        f.type === 'link'
          ? preset
          : secret
            ? undefined
            : stored && typeof value !== 'object'
              ? value
              : preset;
      return { ...shown, secret, stored, ...(visible === undefined ? {} : { value: String(visible) }) };
    });
    return {
      sourceId: source.id,
      authId: source.auth_id,
      authName: auth?.name ?? source.auth_id,
      accountName: source.account_name,
      oauth: source.auth_id === 'oauth' || source.auth_id === 'oauth2',
      fields,
    };
  }
}
