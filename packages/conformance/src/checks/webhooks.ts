import { webhookPreProcessResponse } from '@weft/core/protocol';
import { appRequests, isMissingEndpoint, readTransformAnswer } from '@weft/sync-engine';
import { type Context, errorAnswerProblem, formatIssues } from '../context.js';
import type { Exchange } from '../http.js';

const GARBAGE = { weft_conformance: 'garbage event', signature: 'weft-conformance-invalid' };
const missing = (ex: Exchange) => !ex.failure && isMissingEndpoint(ex.status);

/** Why a 2xx-or-error JSON answer is wrong, or undefined. */
function answerProblem(ex: Exchange, parse: (json: unknown) => string | undefined): string | undefined {
  if (ex.failure) return ex.failure;
  const status = ex.status ?? 0;
  if (status >= 200 && status < 300) {
    if (!ex.isJson) return `HTTP ${status} with a non-JSON body`;
    return parse(ex.json);
  }
  return errorAnswerProblem(ex, (s) => s >= 400, 'a JSON answer');
}

/** Checks that need no real third party: garbage events must be refused with JSON errors. */
export async function checkWebhooks(
  ctx: Context,
  types: string[],
  filter: Record<string, unknown>,
  account: Record<string, unknown> | undefined,
): Promise<void> {
  const optional = { optional: true };
  const verify = await ctx.send(appRequests.verifyWebhook({}, GARBAGE), optional);
  const transform = await ctx.send(
    appRequests.transformWebhook({ params: {}, payload: GARBAGE, types, filter, account: account ?? {} }),
    optional,
  );
  const pre = await ctx.send(
    appRequests.preProcessWebhook({
      params: {},
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(GARBAGE),
      types,
      account: account ?? {},
    }),
    optional,
  );
  const preProcessFlow = !missing(pre);

  if (missing(verify)) {
    if (preProcessFlow)
      ctx.skip('webhooks.verify', { reason: 'not implemented; the app uses the pre-process flow' });
    else
      ctx.fail('webhooks.verify', {
        reason: `webhooks are enabled but neither verify nor pre-process is implemented (HTTP ${verify.status})`,
        exchange: verify,
      });
  } else {
    const s = verify.status ?? 0;
    const problem =
      !verify.failure && s >= 200 && s < 300
        ? `a garbage event was accepted with HTTP ${s}; verify must check the signature and answer an error status`
        : errorAnswerProblem(verify, (x) => x >= 400, 'an error status with {message}');
    ctx.expect('webhooks.verify', problem, { exchange: verify });
  }

  if (missing(transform)) {
    if (preProcessFlow)
      ctx.skip('webhooks.transform', { reason: 'not implemented; the app uses the pre-process flow' });
    else
      ctx.warn('webhooks.transform', {
        reason: `not implemented (HTTP ${transform.status})`,
        exchange: transform,
      });
  } else {
    ctx.expect(
      'webhooks.transform',
      answerProblem(transform, (json) => {
        const read = readTransformAnswer(json);
        return read.ok ? undefined : `expected {data: {<type>: [rows]}}: ${read.problem}`;
      }),
      { exchange: transform },
    );
  }

  if (!preProcessFlow) ctx.skip('webhooks.pre-process', { reason: 'optional endpoint not implemented' });
  else
    ctx.expect(
      'webhooks.pre-process',
      answerProblem(pre, (json) => {
        const parsed = webhookPreProcessResponse.safeParse(json);
        return parsed.success
          ? undefined
          : `expected {reply, workspaceIds}: ${formatIssues(parsed.error.issues)}`;
      }),
      { exchange: pre },
    );
}
