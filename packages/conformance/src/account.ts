/**
 * The account as the service sends it. The service stores the form's field values, merges in
 * whatever `/validate` returned (a refreshed token, the account title) and adds system keys of
 * its own to every account: `auth` (the authentication id), `_id`, `app`, `owner` and `name`
 * (the account title). Apps must tolerate them and some rely on them (`auth` tells which
 * authentication the account uses), so the kit sends them exactly like that.
 */

/** Placeholder ids shaped like the service's own (24 hex digits). */
export const SYSTEM_IDS = {
  _id: '64b7f3a2c9e77a0012f3a001',
  app: '64b7f3a2c9e77a0012f3a0a7',
  owner: '64b7f3a2c9e77a0012f3a0e5',
} as const;

/** The account title used when `/validate` gave none. */
export const DEFAULT_ACCOUNT_NAME = 'weft-conformance account';

export interface ServiceAccountInput {
  authenticationId: string;
  /** The account fields given to the kit. */
  fields?: Record<string, unknown>;
  /** What `/validate` answered for these fields (stored by the service and sent back). */
  validated?: Record<string, unknown>;
}

/**
 * System keys first, then the fields, then what `/validate` returned: a refreshed token replaces
 * the stale one, as the service stores it. An app field called `auth` keeps its own value.
 */
export function serviceAccount(input: ServiceAccountInput): Record<string, unknown> {
  const validated = input.validated ?? {};
  const name = typeof validated.name === 'string' ? validated.name : DEFAULT_ACCOUNT_NAME;
  return {
    auth: input.authenticationId,
    ...SYSTEM_IDS,
    name,
    ...(input.fields ?? {}),
    ...validated,
  };
}
