import { PROTOCOL_PATHS } from '@weft/core/protocol';
import type { CheckId } from '../catalog.js';
import { type Context, errorAnswerProblem } from '../context.js';
import type { Exchange } from '../http.js';

export const UNKNOWN_TYPE = '__weft_unknown_type__';
export const UNKNOWN_ACTION = '__weft_unknown_action__';
export const MALFORMED_JSON = '{"requestedType":';

/** Pass on `wanted`, warn on another 4xx with {message}, fail otherwise. */
function expectStatus(ctx: Context, id: CheckId, ex: Exchange, wanted: number, what: string): void {
  const status = ex.status ?? 0;
  if (!ex.failure && status >= 400 && status < 500 && status !== wanted) {
    const bodyProblem = errorAnswerProblem(ex, () => true, '');
    if (!bodyProblem) {
      ctx.warn(id, {
        reason: `refused with HTTP ${status}; ${wanted} is expected for ${what}`,
        exchange: ex,
      });
      return;
    }
  }
  ctx.expect(
    id,
    errorAnswerProblem(ex, (s) => s === wanted, `HTTP ${wanted} {message} for ${what}`),
    { exchange: ex },
  );
}

export async function checkSyncErrors(
  ctx: Context,
  types: string[],
  filter: Record<string, unknown>,
  account: Record<string, unknown> | undefined,
): Promise<void> {
  const base = { types, filter, account: account ?? {}, pagination: null, lastSynchronizedAt: null };
  const unknown = await ctx.call('POST', PROTOCOL_PATHS.data, { ...base, requestedType: UNKNOWN_TYPE });
  expectStatus(ctx, 'errors.unknown-type', unknown, 404, 'an unknown type');

  const malformed = await ctx.call('POST', PROTOCOL_PATHS.data, undefined, { rawBody: MALFORMED_JSON });
  expectStatus(ctx, 'errors.malformed-json', malformed, 400, 'a malformed JSON body');

  const missing = await ctx.call('POST', PROTOCOL_PATHS.data, base);
  expectStatus(ctx, 'errors.missing-requested-type', missing, 400, 'a data request without requestedType');
}

export async function checkActionErrors(
  ctx: Context,
  account: Record<string, unknown> | undefined,
): Promise<void> {
  const ex = await ctx.call('POST', PROTOCOL_PATHS.execute, {
    action: { action: UNKNOWN_ACTION, args: {} },
    account: account ?? {},
  });
  ctx.expect(
    'errors.unknown-action',
    errorAnswerProblem(ex, (s) => s >= 400 && s < 500, 'a 4xx status with {message} for an unknown action'),
    { exchange: ex },
  );
}
