import { Router } from 'express';
import { principalOf } from '../auth/authenticate.js';
import { inRequest } from '../db/request-scope.js';
import { chargeCommands } from '../rate-limit/rate-limit-middleware.js';
import type { Workspace } from '../workspace.js';
import { answerInJson, commandResultsJson } from './answer-json.js';
import { checkBody, overBudget } from './budgets.js';

/**
 * POST /api/commands: an array of commands in, an array of results out (always HTTP 200 once the
 * request is within its budgets). The request's work stops when its client hangs up or its time
 * budget runs out (see db/request-scope.ts).
 */
export function commandsRouter(workspace: Workspace): Router {
  const router = Router();
  router.post('/api/commands', async (req, res) => {
    const budgets = workspace.budgets;
    checkBody(req.body, budgets);
    if (Array.isArray(req.body)) await chargeCommands(workspace.driver, res, req.body.length);
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
      answerInJson(req.body);
      const results = await inRequest({ signal: stop.signal }, () =>
        workspace.execute(req.body, { user: principalOf(res), budgets }),
      );
      res.set('content-type', 'application/json; charset=utf-8').send(commandResultsJson(results));
    } finally {
      clearTimeout(timer);
      res.off('close', hungUp);
    }
  });
  return router;
}
