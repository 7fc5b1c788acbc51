import type { ActionArgs, ActionDefinition } from './actions.js';
import type { AuthContext, AuthenticationDefinition } from './authentication.js';
import type { InputFields, InputValues } from './inputs.js';
import type { ResourceHandler } from './resource.js';
import type { SchemaFields } from './schema-fields.js';
import type { SyncTypeDefinition } from './sync-type.js';
import type { WebhooksDefinition } from './webhooks.js';

/** The account type handlers receive: the union of every authentication's account. */
export type AccountOfAuth<Auth extends readonly AuthenticationDefinition<any>[]> =
  Auth[number] extends AuthenticationDefinition<infer T> ? T : never;

/** The app's logo: an SVG (inline or a file path), a URL to redirect to, or none. */
export type LogoDefinition = { svg: string } | { file: string } | { url: string };

export interface DatalistContext<A, F> {
  account: A;
  /** Values of the filters this list depends on (`datalist_requires`). */
  dependsOn: Partial<F> & Record<string, unknown>;
  types: readonly string[];
  signal: AbortSignal;
  log: AuthContext['log'];
}

export type DatalistHandler<A, F> = (
  ctx: DatalistContext<A, F>,
) => Promise<ReadonlyArray<{ title: string; value: string | number }>>;

export interface FilterValidateContext<A, F> {
  account: A;
  filter: F;
  types: readonly string[];
  signal: AbortSignal;
  log: AuthContext['log'];
}

/** What `accountTypes` and `accountFilters` receive. */
export interface AccountConfigContext<A, F> {
  account: A;
  /**
   * The filter of a schema or data request (already checked), or `{}` when the config is asked
   * for: the config request carries no filter.
   */
  filter: Partial<F> & Record<string, unknown>;
  signal: AbortSignal;
  log: AuthContext['log'];
}

/**
 * A type that exists only for some accounts (a table of the user's database, a tracker type with
 * the account's custom fields). Its items are not typed from its fields: they are only known at
 * run time.
 */
export type AccountTypeDefinition<A, F> = SyncTypeDefinition<SchemaFields, A, F>;

/** The data-synchronization part of an integration app. */
export interface SyncDefinition<A, FI extends InputFields, Types extends Record<string, SchemaFields>> {
  /** Filters users set on the synced data, keyed by filter id. */
  filters?: FI;
  /**
   * Filters that depend on the account, added to `filters` in the config and checked like them.
   * Their values reach handlers untyped (`filter[id]` is `unknown`).
   */
  accountFilters?: (
    ctx: Omit<AccountConfigContext<A, InputValues<FI>>, 'filter'>,
  ) => Promise<InputFields> | InputFields;
  /**
   * Types that depend on the account (and the filter), keyed by type id, added to `types`. Core
   * checks what it returns as it checks `types` at start-up (a 500 naming the problem otherwise)
   * and serves schema and data requests for them. Called for `config` (with `filter: {}`), and
   * for `schema` and `data` requests that name a type `types` does not define.
   */
  accountTypes?: (
    ctx: AccountConfigContext<A, InputValues<FI>>,
  ) =>
    | Promise<Record<string, AccountTypeDefinition<A, InputValues<FI> & Record<string, unknown>>>>
    | Record<string, AccountTypeDefinition<A, InputValues<FI> & Record<string, unknown>>>;
  /**
   * Seconds the results of `accountTypes` and `accountFilters` are reused for the same account
   * and filter; default 60, 0 calls them on every request. A performance cache in memory, keyed
   * by a hash of the account: never sync state, never the account itself.
   */
  accountCacheSeconds?: number;
  /** Sent as the config's numeric `version`: raise it when types or filters change. */
  version?: number;
  /**
   * One handler per `datalist` filter, keyed by filter id (also of filters from
   * `accountFilters`, which is why any key is allowed; start-up refuses a handler without a
   * filter when the app has no `accountFilters`).
   */
  datalists?: { [K in keyof FI]?: DatalistHandler<A, InputValues<FI>> } & Record<
    string,
    DatalistHandler<A, InputValues<FI>>
  >;
  /** Checks a filter; throw `InvalidFilterError` (400) when it cannot be used. */
  validateFilter?: (ctx: FilterValidateContext<A, InputValues<FI>>) => Promise<void> | void;
  /** Synced types keyed by type id; `{}` when every type comes from `accountTypes`. */
  types: { [K in keyof Types]: SyncTypeDefinition<Types[K], A, InputValues<FI>> };
  /** Webhook-driven sync. */
  webhooks?: WebhooksDefinition<A, InputValues<FI>>;
  /** Serves `app://resource?...` file references. */
  resource?: ResourceHandler<A, InputValues<FI>>;
}

/** Everything an app is, as its author writes it. */
export interface AppDefinition<
  Auth extends readonly AuthenticationDefinition<any>[] = readonly AuthenticationDefinition<any>[],
  FI extends InputFields = InputFields,
  Types extends Record<string, SchemaFields> = Record<string, SchemaFields>,
  Actions extends Record<string, ActionArgs> = Record<string, ActionArgs>,
> {
  /** Stable app id, e.g. `github-issues`. */
  id: string;
  name: string;
  version: string;
  description: string;
  website: string;
  logo?: LogoDefinition;
  /** At least one; `auth.none()` for a public app. */
  authentication: Auth;
  /** Items per data page unless a type says otherwise; default 1,000. */
  pageSize?: number;
  /** Time limit of every handler in milliseconds; default 25,000. */
  timeoutMs?: number;
  /** Makes this an integration app. */
  sync?: SyncDefinition<AccountOfAuth<Auth>, FI, Types>;
  /** Makes this an external-action app; keyed by action id. */
  actions?: { [K in keyof Actions]: ActionDefinition<Actions[K], AccountOfAuth<Auth>> };
}

/**
 * Defines an app. A typed identity function: account, filter, item and argument types are
 * inferred from the definition, so handlers need no casts. `createRouter()` checks the whole
 * definition at start-up.
 */
export function defineApp<
  const Auth extends readonly AuthenticationDefinition<any>[],
  const FI extends InputFields = Record<never, never>,
  const Types extends Record<string, SchemaFields> = Record<never, never>,
  const Actions extends Record<string, ActionArgs> = Record<never, never>,
>(definition: AppDefinition<Auth, FI, Types, Actions>): AppDefinition<Auth, FI, Types, Actions> {
  return definition;
}
