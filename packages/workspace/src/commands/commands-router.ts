import { type Request, Router } from 'express';
import { principalOf } from '../auth/authenticate.js';
import { inRequest } from '../db/request-scope.js';
import { chargeCommands } from '../rate-limit/rate-limit-middleware.js';
import type { Workspace } from '../workspace.js';
import { answerInJson, commandResultsJson } from './answer-json.js';
import { checkBody, overBudget } from './budgets.js';

/** No body at all, or one of zero bytes (which the JSON parser leaves as `{}`). */
function emptyBody(req: Request): boolean {
  return req.body === undefined || req.headers['content-length'] === '0';
}

/**
 * POST /api/commands: an array of commands in, an array of results out (always HTTP 200 once the
 * request is within its budgets). As the service does, a single command object (not in an array)
 * is answered with its single result, and an empty body with `[]`. The request's work stops when
 * its client hangs up or its time budget runs out (see db/request-scope.ts).
 */
export function commandsRouter(workspace: Workspace): Router {
  const router = Router();
  router.post('/api/commands', async (req, res) => {
    const budgets = workspace.budgets;
    if (emptyBody(req)) {
      res.json([]);
      return;
    }
    const single = !Array.isArray(req.body);
    const commands: unknown[] = single ? [req.body] : req.body;
    checkBody(commands, budgets);
    await chargeCommands(workspace.driver, res, commands.length);
    const stop = new AbortController();
    const hungUp = () => {
      if (!res.writableFinished) stop.abort(overBudget('The client closed the request before its answer'));
    };
    res.on('close', hungUp);
    const ms = budgets.requestTimeoutMs;
    const timer =
      ms > 0
        ? setTimeout(
            () => stop.abort(overBudget(`The request ran longer than ${ms} ms (requestTimeoutMs)`)),
            ms,
          )
        : undefined;
    try {
      answerInJson(commands);
      const results = await inRequest({ signal: stop.signal }, () =>
        workspace.execute(commands, { user: principalOf(res), budgets }),
      );
      const text = commandResultsJson(results, commands);
      // The array's one element, as text: `[` and `]` taken off.
      res.set('content-type', 'application/json; charset=utf-8').send(single ? text.slice(1, -1) : text);
    } finally {
      clearTimeout(timer);
      res.off('close', hungUp);
    }
  });
  return router;
}
