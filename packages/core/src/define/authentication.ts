import type { Authentication, AuthenticationField } from '../protocol/index.js';
import type { Logger } from '../logging/logger.js';
import type { InputFields } from './inputs.js';

/** Context handed to every authentication hook. */
export interface AuthContext {
  /** Aborted when the request times out or the client goes away. */
  signal: AbortSignal;
  log: Logger;
}

/** What `/validate` answers: the account's title, plus fields the service merges into the account. */
export interface ValidateResult {
  name: string;
  [extraField: string]: unknown;
}

/**
 * One entry of the descriptor's `authentication` list, as core consumes it. Built by
 * `auth.none()`, `auth.fields(...)`, `auth.oauth1(...)` or `auth.oauth2(...)`.
 * `TAccount` is the account object handlers receive; it exists for type inference only.
 */
export interface AuthenticationDefinition<TAccount = unknown> {
  readonly kind: 'none' | 'fields' | 'oauth1' | 'oauth2';
  readonly id: string;
  readonly name: string;
  readonly description?: string;
  /** Form fields as sent in the descriptor. */
  readonly fields: readonly AuthenticationField[];
  /** For field-based kinds: the form fields, used to check accounts at the boundary. */
  readonly inputs?: InputFields;
  readonly responsibleFor?: Authentication['responsibleFor'];
  /** Keys of the account whose values are secret: redacted from logs and errors. */
  readonly secretKeys: readonly string[];
  /**
   * Checks an account at `/validate`. Throw `InvalidAccountError` (401) when it is not valid.
   * Returns the account title and any fields to merge (e.g. a refreshed `access_token`).
   */
  validate?(account: TAccount, ctx: AuthContext): Promise<ValidateResult>;
  /** Phantom: carries the account type for inference; never set at run time. */
  readonly __account?: TAccount;
}

/** The account type of an authentication definition. */
export type AccountOf<A> = A extends AuthenticationDefinition<infer T> ? T : never;
