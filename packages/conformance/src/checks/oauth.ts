import { appRequests, readOauth1AuthorizeAnswer, readOauth2AuthorizeAnswer } from '@weft/sync-engine';
import { type Context, errorAnswerProblem, jsonAnswerProblem } from '../context.js';

export const DUMMY_CALLBACK = 'http://127.0.0.1:9/weft-conformance/oauth/callback';
export const DUMMY_STATE = 'weft-conformance-state';

/** Authorize with a dummy callback: a redirect address, or an error {message} (a warning: e.g. no client configured). */
export async function checkOAuth(ctx: Context, authIds: string[]): Promise<void> {
  const flows = [
    {
      id: 'oauth2.authorize' as const,
      check: 'oauth.oauth2-authorize' as const,
      auth: 'oauth2',
      request: appRequests.oauth2Authorize(DUMMY_CALLBACK, DUMMY_STATE),
      read: readOauth2AuthorizeAnswer,
      shape: '{redirect_uri}',
    },
    {
      id: 'oauth1.authorize' as const,
      check: 'oauth.oauth1-authorize' as const,
      auth: 'oauth',
      request: appRequests.oauth1Authorize(`${DUMMY_CALLBACK}?state=${DUMMY_STATE}`),
      read: readOauth1AuthorizeAnswer,
      shape: '{redirect_uri, token, secret}',
    },
  ];
  for (const flow of flows) {
    if (!authIds.includes(flow.auth)) {
      ctx.skip(flow.check, { reason: `no \`${flow.auth}\` authentication declared` });
      continue;
    }
    const ex = await ctx.send(flow.request);
    const status = ex.status ?? 0;
    if (!ex.failure && status >= 400) {
      const problem = errorAnswerProblem(ex, () => true, 'an error status with {message}');
      if (problem) ctx.fail(flow.check, { reason: problem, exchange: ex });
      else
        ctx.warn(flow.check, {
          reason: `refused with HTTP ${status} (for example no OAuth client configured)`,
          exchange: ex,
        });
      continue;
    }
    let problem = jsonAnswerProblem(ex);
    if (!problem) {
      const read = flow.read(ex.json);
      if (!read.ok) problem = `expected ${flow.shape}: ${read.problem}`;
    }
    ctx.expect(flow.check, problem, { exchange: ex });
  }
}
