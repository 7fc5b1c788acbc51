import { PROTOCOL_PATHS } from '@weft/core/protocol';
import { type Context, errorAnswerProblem, jsonAnswerProblem } from '../context.js';
import type { ActionFixture } from '../types.js';
import { isPlainObject, show } from '../util.js';

export async function checkActions(
  ctx: Context,
  fixtures: ActionFixture[] | undefined,
  declared: string[],
  account: Record<string, unknown> | undefined,
): Promise<void> {
  if (!fixtures || fixtures.length === 0) {
    const hint =
      'no actions fixture; pass --actions <file> (or the `actions` option) with [{"action": "<id>", "args": {...}, "expect": "success"}]';
    ctx.skip('actions.fixtures', { reason: hint });
    ctx.skip('actions.success', { reason: 'no actions fixture' });
    ctx.skip('actions.failure', { reason: 'no actions fixture' });
    return;
  }
  const unknown = fixtures.filter((f) => !declared.includes(f.action)).map((f) => f.action);
  if (unknown.length) {
    ctx.warn('actions.fixtures', {
      reason: `fixture names actions the descriptor does not list: ${unknown.join(', ')}`,
    });
  } else
    ctx.pass('actions.fixtures', {
      reason: `${fixtures.length} fixture entr${fixtures.length === 1 ? 'y' : 'ies'}`,
    });

  const expected = new Set<string>();
  let misreported = false;
  for (const fixture of fixtures) {
    const expect = fixture.expect ?? 'success';
    expected.add(expect);
    const ex = await ctx.call('POST', PROTOCOL_PATHS.execute, {
      action: { action: fixture.action, args: fixture.args ?? {} },
      account: account ?? {},
    });
    const status = ex.status ?? 0;
    const subject = `${fixture.action}, expect ${expect}`;
    if (
      !ex.failure &&
      status >= 200 &&
      status < 300 &&
      isPlainObject(ex.json) &&
      typeof ex.json.message === 'string'
    ) {
      misreported = true;
      ctx.fail('actions.failure-status', {
        subject,
        reason: `failure reported with a success status: HTTP ${status} ${show(ex.json)}; use an error status`,
        exchange: ex,
      });
      continue;
    }
    if (expect === 'success') {
      const problem =
        jsonAnswerProblem(ex, 'a 2xx status with a JSON object') ??
        (isPlainObject(ex.json) ? undefined : `expected a JSON object such as {}, got ${show(ex.json)}`);
      ctx.expect('actions.success', problem, { subject, exchange: ex });
    } else {
      ctx.expect(
        'actions.failure',
        errorAnswerProblem(ex, (s) => s >= 400, 'an error status with {message}'),
        {
          subject,
          exchange: ex,
        },
      );
    }
  }
  if (!misreported) ctx.pass('actions.failure-status');
  if (!expected.has('success')) ctx.skip('actions.success', { reason: 'no fixture entry expects success' });
  if (!expected.has('failure')) ctx.skip('actions.failure', { reason: 'no fixture entry expects failure' });
}
