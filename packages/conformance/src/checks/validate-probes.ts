import { appRequests } from '@weft/sync-engine';
import type { CheckId } from '../catalog.js';
import { type Context, messageOf, probeProblem } from '../context.js';
import type { Exchange } from '../http.js';
import type { DescriptorInfo } from './descriptor.js';
import { declaredFields, INVALID_VALUE } from './auth-fields.js';

/** At most this many partial accounts (one per required field left out). */
const MAX_PARTIAL = 5;

/**
 * A user can save the account form half filled in, and real apps crashed or hung on it. An
 * incomplete account must be refused in time with a 4xx `{message}` (401 or 400 alike); a 5xx,
 * a hang or a non-JSON body fails; a 2xx warns (the account is stored and every sync then fails).
 */
function judge(ctx: Context, id: CheckId, ex: Exchange, what: string, subject?: string): void {
  const input = subject ? { exchange: ex, subject } : { exchange: ex };
  const problem = probeProblem(ex);
  const status = ex.status ?? 0;
  if (problem) ctx.fail(id, { ...input, reason: `${what}: ${problem}` });
  else if (status >= 500)
    ctx.fail(id, {
      ...input,
      reason: `${what}: HTTP ${status}${messageOf(ex)}; a missing field is the user's mistake, answer 401 or 400 {message}`,
    });
  else if (status >= 400) ctx.pass(id, { ...input, reason: `refused with HTTP ${status}` });
  else
    ctx.warn(id, {
      ...input,
      reason: `${what} was accepted with HTTP ${status}: the service would store an account that cannot work`,
    });
}

/** `validate.empty-fields` and `validate.partial-fields`. */
export async function checkIncompleteFields(
  ctx: Context,
  info: DescriptorInfo,
  authenticationId: string,
  account: Record<string, unknown> | undefined,
): Promise<void> {
  if (authenticationId === 'none') {
    const reason = 'authentication `none` has no fields';
    ctx.skip('validate.empty-fields', { reason });
    ctx.skip('validate.partial-fields', { reason });
    return;
  }
  if (authenticationId === 'oauth2' || authenticationId === 'oauth') {
    // The account comes from the OAuth flow, never from a form a user may leave half filled in.
    const reason = `an \`${authenticationId}\` account is made by the OAuth flow, not typed in: the service never sends one with empty fields`;
    ctx.skip('validate.empty-fields', { reason });
    ctx.skip('validate.partial-fields', { reason });
    return;
  }
  const { declared, required } = declaredFields(info, authenticationId);
  const requiredKeys = required.map((f) => String(f.id));
  if (requiredKeys.length === 0) {
    const reason = `every field of \`${authenticationId}\` is optional: an empty account is valid`;
    ctx.skip('validate.empty-fields', { reason });
    ctx.skip('validate.partial-fields', { reason });
    return;
  }

  const empty = await ctx.send(appRequests.validate(authenticationId, {}));
  judge(ctx, 'validate.empty-fields', empty, 'an account with no fields');

  const keys = [
    ...new Set([...Object.keys(account ?? {}), ...declared.map((f) => String(f.id)), ...requiredKeys]),
  ];
  if (keys.length < 2) {
    ctx.skip('validate.partial-fields', {
      reason: `\`${authenticationId}\` has one field: a partial account is the empty one`,
    });
    return;
  }
  for (const left of [...new Set(requiredKeys)].slice(0, MAX_PARTIAL)) {
    const fields = Object.fromEntries(
      keys.filter((k) => k !== left).map((k) => [k, account && k in account ? account[k] : INVALID_VALUE]),
    );
    const ex = await ctx.send(appRequests.validate(authenticationId, fields));
    judge(ctx, 'validate.partial-fields', ex, `an account without \`${left}\``, `without ${left}`);
  }
}
