import { appRequests } from '@weft/sync-engine';
import { PROTOCOL_PATHS } from '@weft/core/protocol';
import type { CheckId } from '../catalog.js';
import { type Context, errorAnswerProblem, probeProblem } from '../context.js';
import { describeAnswer, type Exchange } from '../http.js';

export const UNKNOWN_TYPE = '__weft_unknown_type__';
export const UNKNOWN_ACTION = '__weft_unknown_action__';
export const MALFORMED_JSON = '{"requestedType":';

/**
 * For input the service never sends (an unknown type, no `requestedType`, malformed JSON): pass on
 * `wanted` with `{message}`; any other answer that comes in time warns, whatever its status — the
 * service cannot be hurt by it; fail only when no answer comes or an error body is not JSON
 * `{message}`.
 */
function expectStatus(ctx: Context, id: CheckId, ex: Exchange, wanted: number, what: string): void {
  const problem = probeProblem(ex);
  if (problem) {
    ctx.fail(id, { reason: problem, exchange: ex });
    return;
  }
  const status = ex.status ?? 0;
  if (status === wanted && !errorAnswerProblem(ex, () => true, '')) {
    ctx.pass(id, { reason: `HTTP ${status}` });
    return;
  }
  ctx.warn(id, {
    reason: `${describeAnswer(ex)}; HTTP ${wanted} {message} is expected for ${what} (the service never sends it, so this only warns)`,
    exchange: ex,
  });
}

export async function checkSyncErrors(
  ctx: Context,
  types: string[],
  filter: Record<string, unknown>,
  account: Record<string, unknown> | undefined,
): Promise<void> {
  const base = { types, filter, account: account ?? {}, pagination: null, lastSynchronizedAt: null };
  const unknown = await ctx.send(appRequests.data({ ...base, requestedType: UNKNOWN_TYPE }));
  expectStatus(ctx, 'errors.unknown-type', unknown, 404, 'an unknown type');

  const malformed = await ctx.send(
    { method: 'POST', path: PROTOCOL_PATHS.data },
    { rawBody: MALFORMED_JSON },
  );
  expectStatus(ctx, 'errors.malformed-json', malformed, 400, 'a malformed JSON body');

  // Deliberately not a data request: `requestedType` is left out.
  const missing = await ctx.send({ method: 'POST', path: PROTOCOL_PATHS.data, body: base });
  expectStatus(ctx, 'errors.missing-requested-type', missing, 400, 'a data request without requestedType');
}

export async function checkActionErrors(
  ctx: Context,
  account: Record<string, unknown> | undefined,
): Promise<void> {
  const ex = await ctx.send(appRequests.execute(UNKNOWN_ACTION, {}, account ?? {}));
  ctx.expect(
    'errors.unknown-action',
    errorAnswerProblem(ex, (s) => s >= 400 && s < 500, 'a 4xx status with {message} for an unknown action'),
    { exchange: ex },
  );
}
