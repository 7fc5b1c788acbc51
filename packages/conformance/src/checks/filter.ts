import { appRequests, isMissingEndpoint } from '@weft/sync-engine';
import { type Context, errorAnswerProblem } from '../context.js';
import { describeAnswer } from '../http.js';
import { isPlainObject, show } from '../util.js';
import type { FilterInfo } from './config.js';

export const INVALID_MARKER = '__weft_conformance_invalid';

/** A value of the wrong JSON type for each filter type. */
export function invalidValue(type: string): unknown {
  switch (type) {
    case 'number':
    case 'bool':
    case 'date':
    case 'datebox':
    case 'multidropdown':
      return 'weft-conformance-invalid';
    default:
      return { [INVALID_MARKER]: true };
  }
}

export async function checkFilterValidate(
  ctx: Context,
  types: string[],
  filters: FilterInfo[],
  filterValues: Record<string, unknown>,
  account: Record<string, unknown> | undefined,
): Promise<void> {
  const given = await ctx.send(appRequests.validateFilter(types, filterValues, account ?? {}), {
    optional: true,
  });
  if (!given.failure && isMissingEndpoint(given.status)) {
    const reason = `optional endpoint not implemented (HTTP ${given.status})`;
    ctx.skip('filter.valid', { reason });
    ctx.skip('filter.invalid', { reason });
    return;
  }
  const status = given.status ?? 0;
  if (given.failure) ctx.fail('filter.valid', { reason: given.failure, exchange: given });
  else if (status === 200 || status === 204) ctx.pass('filter.valid', { reason: `HTTP ${status}` });
  else if (status === 400 && isPlainObject(given.json)) {
    ctx.warn('filter.valid', {
      reason: `the given filter was refused: ${show(given.json.message)}`,
      exchange: given,
    });
  } else
    ctx.fail('filter.valid', {
      reason: `expected HTTP 200 or 204, got ${describeAnswer(given)}`,
      exchange: given,
    });

  if (filters.length === 0) {
    ctx.skip('filter.invalid', { reason: 'the app declares no filters, so no value is invalid' });
    return;
  }
  const invalid: Record<string, unknown> = { [INVALID_MARKER]: true };
  for (const f of filters) invalid[f.id] = invalidValue(f.type);
  const ex = await ctx.send(appRequests.validateFilter(types, invalid, account ?? {}));
  const s = ex.status ?? 0;
  if (!ex.failure && (s === 200 || s === 204)) {
    ctx.warn('filter.invalid', {
      reason: `HTTP ${s}: every filter was set to a value of the wrong type and the app accepted it`,
      exchange: ex,
    });
    return;
  }
  if (!ex.failure && s >= 400 && s < 500 && s !== 400 && !errorAnswerProblem(ex, () => true, '')) {
    ctx.warn('filter.invalid', { reason: `refused with HTTP ${s}; the spec asks for 400`, exchange: ex });
    return;
  }
  ctx.expect(
    'filter.invalid',
    errorAnswerProblem(ex, (x) => x === 400, 'HTTP 400 {message}'),
    { exchange: ex },
  );
}
