import { PROTOCOL_PATHS, validateResponse } from '@weft/core/protocol';
import { type Context, errorAnswerProblem, formatIssues, jsonAnswerProblem } from '../context.js';
import type { DescriptorInfo } from './descriptor.js';

export const INVALID_VALUE = 'weft-conformance-invalid';

const NO_VALUE_TYPES = new Set(['link', 'oauth']);

export async function checkValidate(
  ctx: Context,
  info: DescriptorInfo,
  authenticationId: string,
  account: Record<string, unknown> | undefined,
): Promise<void> {
  const auth = info.authentications.find((a) => a.id === authenticationId);
  const declared = (auth?.fields ?? []).filter((f) => !NO_VALUE_TYPES.has(String(f.type)));
  const required = declared.filter((f) => f.optional !== true);

  const oauth = authenticationId === 'oauth' || authenticationId === 'oauth2';
  if (!account && (required.length > 0 || oauth)) {
    const needs = oauth ? 'tokens from the OAuth flow' : required.map((f) => String(f.id)).join(', ');
    ctx.skip('validate.account', {
      reason: `no account given; authentication \`${authenticationId}\` needs ${needs} (pass --account)`,
    });
  } else {
    const ex = await ctx.call('POST', PROTOCOL_PATHS.validate, {
      id: authenticationId,
      fields: account ?? {},
    });
    let problem = jsonAnswerProblem(ex);
    if (!problem) {
      const parsed = validateResponse.safeParse(ex.json);
      if (!parsed.success) problem = `expected {name: string}: ${formatIssues(parsed.error.issues)}`;
    }
    ctx.expect('validate.account', problem, { exchange: ex, subject: authenticationId });
  }

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
  const ex = await ctx.call('POST', PROTOCOL_PATHS.validate, { id: authenticationId, fields });
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
