import { Router } from 'express';
import { principalOf } from '../auth/authenticate.js';
import { answerInJson, commandResultsJson } from './answer-json.js';
import type { Workspace } from '../workspace.js';

/** POST /api/commands: an array of commands in, an array of results out (always HTTP 200). */
export function commandsRouter(workspace: Workspace): Router {
  const router = Router();
  router.post('/api/commands', async (req, res) => {
    answerInJson(req.body);
    const results = await workspace.execute(req.body, { user: principalOf(res) });
    res.set('content-type', 'application/json; charset=utf-8').send(commandResultsJson(results));
  });
  return router;
}
