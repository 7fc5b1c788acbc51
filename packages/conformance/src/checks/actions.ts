import { appRequests, readActionAnswer } from '@weft/sync-engine';
import { type Context, errorAnswerProblem, jsonAnswerProblem, messageOf, probeProblem } from '../context.js';
import type { ActionFixture } from '../types.js';
import { isPlainObject, show } from '../util.js';
import { notesReason } from './read-verdict.js';

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
    const ex = await ctx.send(appRequests.execute(fixture.action, fixture.args ?? {}, account ?? {}));
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
      // Read as the engine reads it: any 2xx JSON answer is "the action ran" (a non-object noted).
      const problem = jsonAnswerProblem(ex, 'a 2xx status with a JSON object');
      const notes = problem ? undefined : notesReason(readActionAnswer(ex.json).warnings);
      if (problem) ctx.fail('actions.success', { subject, reason: problem, exchange: ex });
      else ctx.pass('actions.success', notes ? { subject, reason: notes } : { subject });
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

/**
 * Every declared action with none of its required arguments (the spec has no optional arguments;
 * one marked `optional: true` is not counted). A user can save an automation with an argument
 * left empty. The answer must come in time and be an error: a 2xx tells the service the action
 * ran, so it fails, as do a hang and a non-JSON body; a 4xx `{message}` passes; a 5xx `{message}`
 * warns (the user's mistake reads as the app's fault).
 */
export async function checkMissingArgs(
  ctx: Context,
  actions: { action: string; args: Record<string, unknown>[] }[],
  account: Record<string, unknown>,
): Promise<void> {
  const probed = actions.filter((a) => a.args.some((arg) => arg.optional !== true));
  if (probed.length === 0) {
    ctx.skip('actions.missing-args', { reason: 'no action has a required argument' });
    return;
  }
  for (const { action, args } of probed) {
    const missing = args.filter((arg) => arg.optional !== true).map((arg) => String(arg.id));
    const subject = `${action} without ${missing.join(', ')}`;
    const ex = await ctx.send(appRequests.execute(action, {}, account));
    const status = ex.status ?? 0;
    const problem = probeProblem(ex);
    if (problem) ctx.fail('actions.missing-args', { subject, reason: problem, exchange: ex });
    else if (status < 400)
      ctx.fail('actions.missing-args', {
        subject,
        reason: `HTTP ${status}: the service takes a 2xx as "the action ran"; refuse missing arguments with 400 {message}`,
        exchange: ex,
      });
    else if (status >= 500)
      ctx.warn('actions.missing-args', {
        subject,
        reason: `HTTP ${status}${messageOf(ex)}; a missing argument is the user's mistake: 400 {message}`,
        exchange: ex,
      });
    else ctx.pass('actions.missing-args', { subject, reason: `refused with HTTP ${status}` });
  }
}
