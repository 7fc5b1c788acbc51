import { appRequests, readValidateAnswer } from '@weft/sync-engine';
import { serviceAccount } from '../account.js';
import { type Context, errorAnswerProblem, jsonAnswerProblem } from '../context.js';
import { secretValues } from '../secrets.js';
import { isPlainObject } from '../util.js';
import { declaredFields, INVALID_VALUE } from './auth-fields.js';
import type { DescriptorInfo } from './descriptor.js';
import { checkIncompleteFields } from './validate-probes.js';

/**
 * Validates the given account, then as the service stores it (with its system keys and what the
 * first answer returned); refuses an invalid, an empty and partial accounts. Resolves with what
 * `/validate` answered for the given account, which the service stores and sends back later.
 */
export async function checkValidate(
  ctx: Context,
  info: DescriptorInfo,
  authenticationId: string,
  account: Record<string, unknown> | undefined,
): Promise<Record<string, unknown> | undefined> {
  const validated = await checkGivenAccount(ctx, info, authenticationId, account);
  await checkInvalidAccount(ctx, info, authenticationId, account);
  await checkIncompleteFields(ctx, info, authenticationId, account);
  return validated;
}

async function checkGivenAccount(
  ctx: Context,
  info: DescriptorInfo,
  authenticationId: string,
  account: Record<string, unknown> | undefined,
): Promise<Record<string, unknown> | undefined> {
  const { required } = declaredFields(info, authenticationId);
  const oauth = authenticationId === 'oauth' || authenticationId === 'oauth2';
  if (!account && (required.length > 0 || oauth)) {
    const needs = oauth ? 'tokens from the OAuth flow' : required.map((f) => String(f.id)).join(', ');
    const reason = `no account given; authentication \`${authenticationId}\` needs ${needs} (pass --account)`;
    ctx.skip('validate.account', { reason });
    ctx.skip('validate.stored-account', { reason });
    return undefined;
  }
  // At account setup the service sends the form's values only.
  const ex = await ctx.send(appRequests.validate(authenticationId, account ?? {}));
  // What /validate returns is stored with the account: a refreshed token is as secret as the key.
  if (isPlainObject(ex.json)) ctx.addSecrets(secretValues(ex.json, info));
  let problem = jsonAnswerProblem(ex);
  if (!problem) {
    const read = readValidateAnswer(ex.json);
    if (!read.ok) problem = `expected {name: string}: ${read.problem}`;
  }
  ctx.expect('validate.account', problem, { exchange: ex, subject: authenticationId });
  if (problem || !isPlainObject(ex.json)) {
    ctx.skip('validate.stored-account', { reason: 'the given account did not validate' });
    return undefined;
  }
  const validated = ex.json;

  // Before every sync run the service validates the stored account: the fields, what the first
  // answer returned, and its system keys. An app must not refuse those keys.
  const stored = await ctx.send(
    appRequests.validate(
      authenticationId,
      serviceAccount({ authenticationId, fields: account ?? {}, validated }),
    ),
  );
  let storedProblem = jsonAnswerProblem(stored);
  if (!storedProblem) {
    const read = readValidateAnswer(stored.json);
    if (!read.ok) storedProblem = `expected {name: string}: ${read.problem}`;
  }
  ctx.expect(
    'validate.stored-account',
    storedProblem &&
      `${storedProblem} — the same fields validated without the service's system keys (auth, _id, app, owner, name)`,
    { exchange: stored, subject: authenticationId },
  );
  return validated;
}

async function checkInvalidAccount(
  ctx: Context,
  info: DescriptorInfo,
  authenticationId: string,
  account: Record<string, unknown> | undefined,
): Promise<void> {
  const { declared } = declaredFields(info, authenticationId);
  if (authenticationId === 'none') {
    ctx.skip('validate.invalid-account', { reason: 'authentication `none` has no account to refuse' });
    return;
  }
  const keys = new Set([...Object.keys(account ?? {}), ...declared.map((f) => String(f.id))]);
  // An OAuth account is what the access_token step returned: at least a token (and a secret for v1).
  if (authenticationId === 'oauth2') keys.add('access_token');
  if (authenticationId === 'oauth') for (const k of ['access_token', 'access_secret']) keys.add(k);
  if (keys.size === 0) {
    ctx.skip('validate.invalid-account', {
      reason: `authentication \`${authenticationId}\` declares no fields`,
    });
    return;
  }
  const fields = Object.fromEntries([...keys].map((k) => [k, INVALID_VALUE]));
  const ex = await ctx.send(appRequests.validate(authenticationId, fields));
  const status = ex.status ?? 0;
  if (!ex.failure && status >= 400 && status < 500 && status !== 401) {
    const bodyProblem = errorAnswerProblem(ex, () => true, 'an error status');
    if (bodyProblem) ctx.fail('validate.invalid-account', { reason: bodyProblem, exchange: ex });
    else
      ctx.warn('validate.invalid-account', {
        reason: `refused with HTTP ${status}; the spec asks for 401`,
        exchange: ex,
      });
    return;
  }
  ctx.expect(
    'validate.invalid-account',
    errorAnswerProblem(ex, (s) => s === 401, 'HTTP 401 {message} for an invalid account'),
    { exchange: ex },
  );
}
