import { PROTOCOL_PATHS } from '@weft/core/protocol';
import type { CheckId } from '../catalog.js';
import { type Context, messageOf, probeProblem } from '../context.js';

/**
 * The service asks `config` without an account (all its parameters are optional) and with an
 * empty one (an app with authentication `none`). Real apps crashed reading `account.something`.
 * Any answer in time passes — a config, or a 4xx `{message}` from an app whose types depend on the
 * account; a hang, a 5xx or a non-JSON body fails.
 */
export async function checkConfigProbes(ctx: Context): Promise<void> {
  const probes: [CheckId, string, unknown][] = [
    ['config.no-account', 'config without `account`', {}],
    ['config.empty-account', 'config with `account: {}`', { account: {} }],
  ];
  for (const [id, what, body] of probes) {
    const ex = await ctx.send({ method: 'POST', path: PROTOCOL_PATHS.config, body });
    const status = ex.status ?? 0;
    const problem = probeProblem(ex);
    if (problem) ctx.fail(id, { reason: `${what}: ${problem}`, exchange: ex });
    else if (status >= 500)
      ctx.fail(id, {
        reason: `${what}: HTTP ${status}${messageOf(ex)}; answer a config, or 401 {message} when it needs the account`,
        exchange: ex,
      });
    else if (status >= 400) ctx.pass(id, { reason: `refused with HTTP ${status}` });
    else if (!ex.isJson)
      ctx.fail(id, { reason: `${what}: HTTP ${status} with a non-JSON body`, exchange: ex });
    else ctx.pass(id, { reason: `HTTP ${status}` });
  }
}
