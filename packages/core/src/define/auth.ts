import type { AuthContext, AuthenticationDefinition, ValidateResult } from './authentication.js';
import { type InputFields, type InputValues, toAuthenticationField } from './inputs.js';

export interface FieldsAuthOptions<F extends InputFields> {
  /** Authentication id, e.g. `token`, `basic`, `key`. Not `none`, `oauth` or `oauth2`. */
  id: string;
  name: string;
  description?: string;
  fields: F;
  /** Narrows the account to automations only or data synchronization only. */
  responsibleFor?: { dataSynchronization?: boolean; automations?: boolean };
  /**
   * Checks the account against the upstream system. Return its title (and any fields to merge,
   * such as an upstream account id); throw `InvalidAccountError` when it is not valid.
   */
  validate?: (account: InputValues<F>, ctx: AuthContext) => Promise<ValidateResult> | ValidateResult;
}

/** An account made of form fields (token, basic, API key, ...). */
function fields<const F extends InputFields>(
  options: FieldsAuthOptions<F>,
): AuthenticationDefinition<InputValues<F>> {
  const validate = options.validate;
  return {
    kind: 'fields',
    id: options.id,
    name: options.name,
    ...(options.description === undefined ? {} : { description: options.description }),
    ...(options.responsibleFor === undefined ? {} : { responsibleFor: options.responsibleFor }),
    fields: Object.entries(options.fields).map(([id, field]) => toAuthenticationField(id, field)),
    inputs: options.fields,
    secretKeys: Object.entries(options.fields)
      .filter(([, field]) => field.type === 'password' || field.secret)
      .map(([id]) => id),
    ...(validate === undefined ? {} : { validate: async (account, ctx) => validate(account, ctx) }),
  };
}

/** No account: a public app. The descriptor still lists one authentication, without fields. */
function none(
  options: { name?: string; description?: string } = {},
): AuthenticationDefinition<Record<never, never>> {
  const name = options.name ?? 'Public access';
  return {
    kind: 'none',
    id: 'none',
    name,
    ...(options.description === undefined ? {} : { description: options.description }),
    fields: [],
    secretKeys: [],
    validate: async () => ({ name }),
  };
}

export const fieldAuth = { fields, none } as const;
